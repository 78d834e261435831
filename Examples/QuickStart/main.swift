// QuickStart: an entity, a store, a query, a typed error, a bounded cache and type
// erasure, in one short program. Run it with `swift run QuickStart`.
import Repositories

/// The entity: any `Identifiable & Sendable` type.
struct Product: Identifiable, Sendable, Equatable {
    var id: Int
    var name: String
    var price: Double
}

/// Business logic depends on the protocol, not on where products live.
func cheapest(_ count: Int, in products: some Repository<Product, Int>) async throws -> [Product] {
    try await products.fetch(Query<Product>().sorted(by: \.price).limit(count))
}

let catalog = InMemoryRepository<Product>()
try await catalog.save(contentsOf: [
    Product(id: 1, name: "Tea", price: 3.20),
    Product(id: 2, name: "Bread", price: 1.90),
    Product(id: 3, name: "Milk", price: 0.99),
    Product(id: 4, name: "Cheese", price: 6.50),
])
print("Saved \(try await catalog.count()) products in one batch: \(try await catalog.fetchAll().map(\.name))")

try await catalog.save(Product(id: 1, name: "Green tea", price: 3.40))
print("Replaced product 1; it keeps its place: \(try await catalog.fetchAll().map(\.name))")

let bargains = try await cheapest(2, in: catalog)
print("The two cheapest: \(bargains.map { "\($0.name) (\($0.price))" })")

do {
    _ = try await catalog.require(id: 99)
} catch let error as RepositoryError {
    print("Asking for product 99 throws a typed error: \(error)")
}

// A bounded store keeps the most recently used entities: a ready-made LRU cache.
let recentlyViewed = InMemoryRepository<Product>(capacity: 2)
for id in [3, 4, 2] {
    if let product = try await catalog.fetch(id: id) { try await recentlyViewed.save(product) }
}
print("Recently viewed (capacity 2): \(try await recentlyViewed.fetchAll().map(\.name))")

// AnyRepository erases the store's type and lets one operation be replaced, the way a
// dependency client is overridden in tests or previews.
var readOnlyCatalog = AnyRepository(catalog)
readOnlyCatalog.onSave = { product in
    throw RepositoryError.rejected("The catalog is read-only here; \(product.name) was not saved")
}
do {
    try await readOnlyCatalog.save(Product(id: 5, name: "Butter", price: 2.10))
} catch {
    print("Saving through the read-only view: \(error)")
}
print(
    "Still \(try await readOnlyCatalog.count()) products; the cheapest through the erased type: \(try await cheapest(1, in: readOnlyCatalog).map(\.name))"
)
