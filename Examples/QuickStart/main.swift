// QuickStart: the package's main job in one short program. An API, a crash-safe file and an
// outbox make an offline-first stack: reads come from the file, writes work offline and wait
// in the outbox, and sync() sends them once the API answers again. Run it with
// `swift run QuickStart`; it keeps its files in a temporary directory and removes it.
import Foundation
import Repositories
import Synchronization

/// The entity: any `Identifiable & Sendable` type; `Codable` so it can live in a file.
struct Product: Identifiable, Codable, Sendable, Equatable {
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

/// Runs `call` against the simulated API, or throws `unavailable` while it is switched off.
@Sendable func whenOnline<Answer>(_ call: () async throws -> Answer) async throws -> Answer {
    guard online.withLock({ $0 }) else {
        throw RepositoryError.unavailable("The API cannot be reached (simulated)")
    }
    return try await call()
}

let api = AnyRepository<Product, Int>(
    fetch: { id in try await whenOnline { try await server.fetch(id: id) } },
    fetchAll: { try await whenOnline { try await server.fetchAll() } },
    save: { product in try await whenOnline { try await server.save(product) } },
    saveContentsOf: { batch in try await whenOnline { try await server.save(contentsOf: batch) } },
    delete: { id in try await whenOnline { try await server.delete(id: id) } },
    deleteAll: { try await whenOnline { try await server.deleteAll() } })

func names(_ products: [Product]) -> String {
    products.map(\.name).joined(separator: ", ")
}

/// The story: the device's stores in `directory`, the API switched off and on again.
func story(in directory: URL) async throws {
    let file = try await FileRepository<Product>(fileURL: directory.appending(path: "products.store"))
    let outbox = try await Outbox<Product>(fileURL: directory.appending(path: "products.outbox"))
    // `automaticSync: nil`: this story syncs when it says so. By default a sync also starts
    // after every write, and again with backoff while the API does not answer.
    let products = api.offlineFirst(
        local: file, outbox: outbox, conflicts: .lastWriterWins, automaticSync: nil)

    try await products.sync()
    let mirrored = try await file.fetchAll()
    print("Online: sync() brought the API's products into the file products.store: \(names(mirrored))")

    online.withLock { $0 = false }
    let shown = try await products.fetchAll()
    print("Offline, the API failing every call: \(names(shown)), served from the local mirror")

    try await products.save(Product(id: 4, name: "Cheese", price: 6.50))
    let waiting = try await outbox.changes().count
    print(
        "Saved Cheese offline, at once: \(waiting) change waiting in products.outbox"
            + " (\(try await products.status(of: 4))); the API still holds \(try await server.count()) products"
    )

    online.withLock { $0 = true }
    let report = try await products.sync()
    let left = try await outbox.changes().count
    print(
        "Back online, sync(): the API holds \(names(try await server.fetchAll())); \(left) changes waiting"
            + " (Cheese: \(try await products.status(of: 4)))"
    )
    print("What that sync did, as its SyncReport says: \(report)")

    let bargains = try await cheapest(2, in: products)
    print("The two cheapest, asked through the Repository protocol: \(names(bargains))")

    do {
        _ = try await products.require(id: 99)
    } catch let error as RepositoryError {
        print("Asking for product 99 throws a typed error: \(error)")
    }

    try await outbox.close()
    try await file.close()
}

let directory = FileManager.default.temporaryDirectory.appending(path: "QuickStart-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
print("The device's files (a crash-safe store and an outbox) go in \(directory.path)")
do {
    try await story(in: directory)
    try FileManager.default.removeItem(at: directory)
    print("Removed \(directory.path)")
} catch {
    try FileManager.default.removeItem(at: directory)
    throw error
}
