// QuickStart: an entity, a composed stack (a remote, a local mirror, a cache), a query, a
// typed error and type erasure, in one short program. Run it with `swift run QuickStart`.
import Repositories
import Synchronization

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

// A stand-in for a web API, built from the package's own parts: a store behind a switch.
let server = InMemoryRepository<Product>([
    Product(id: 1, name: "Tea", price: 3.20),
    Product(id: 2, name: "Bread", price: 1.90),
    Product(id: 3, name: "Milk", price: 0.99),
])
let online = Mutex(true)
let offlineError = RepositoryError.unavailable("The API cannot be reached (simulated)")
var api = AnyRepository(server)
api.onFetchAll = {
    guard online.withLock({ $0 }) else { throw offlineError }
    return try await server.fetchAll()
}
api.onSave = { product in
    guard online.withLock({ $0 }) else { throw offlineError }
    try await server.save(product)
}

// The stack: the API first, a local mirror when it fails, a memory cache in front.
let mirror = InMemoryRepository<Product>()
let products =
    api
    .fallback(to: mirror)
    .cached(in: InMemoryRepository<Cached<Product>>(), timeToLive: .seconds(30))

print("Online: \(try await products.fetchAll().map(\.name)) (mirrored: \(try await mirror.count()) products)")

online.withLock { $0 = false }
await products.invalidateAll()  // drop the cache so the next read goes down the stack
print("Offline: \(try await products.fetchAll().map(\.name)) (served from the local mirror)")

do {
    try await products.save(Product(id: 4, name: "Cheese", price: 6.50))
} catch let error as RepositoryError {
    print(
        "Saving offline fails cleanly: \(error.code); the mirror still holds \(try await mirror.count()) products"
    )
}

online.withLock { $0 = true }
try await products.save(Product(id: 4, name: "Cheese", price: 6.50))
print(
    "Back online, saved Cheese: the API holds \(try await server.count()), the mirror \(try await mirror.count())"
)

let bargains = try await cheapest(2, in: products)
print("The two cheapest: \(bargains.map { "\($0.name) (\($0.price))" })")

do {
    _ = try await products.require(id: 99)
} catch let error as RepositoryError {
    print("Asking for product 99 throws a typed error: \(error)")
}

// AnyRepository erases a stack's type, the way a dependency client hides its live value.
let erased: AnyRepository<Product, Int> = AnyRepository(products)
print("Through the erased type: \(try await erased.count()) products")
