import Foundation
import Repositories
import RepositoriesHTTP
import RepositoriesTesting
import Testing

/// The Swift snippets of README.md, verbatim.
enum ReadmeSnippets {
    /// "A 30-second tour": one scope, as a reader would paste it into a `main.swift`; the
    /// directory and the API's URL are the reader's.
    static func tour(directory: URL, apiURL: URL) async throws {
        struct Product: Identifiable, Codable, Sendable, Equatable {
            var id: Int
            var name: String
            var price: Double
        }

        // Business logic asks for the protocol, never for a concrete store.
        func cheapest(_ count: Int, in products: some Repository<Product, Int>) async throws -> [Product] {
            try await products.fetch(Query<Product>().sorted(by: \.price).limit(count))
        }

        // The offline-first stack each article writes by hand. `directory` is a folder your app
        // owns (Application Support on Apple platforms); `apiURL` your REST collection.
        let local = try await FileRepository<Product>(fileURL: directory.appending(path: "products.store"))
        let outbox = try await Outbox<Product>(fileURL: directory.appending(path: "products.outbox"))
        let products = HTTPRepository<Product>(baseURL: apiURL)  // GET/PUT/DELETE a REST resource
            .retrying(.default)  // transient errors, with backoff
            .offlineFirst(local: local, outbox: outbox, conflicts: .lastWriterWins)

        let tea = Product(id: 1, name: "Tea", price: 3.20)
        let bread = Product(id: 2, name: "Bread", price: 1.90)
        try await products.save(contentsOf: [tea, bread])  // on disk at once, online or not
        let two = try await cheapest(2, in: products)  // answered by the file
        try await products.sync()  // sends the waiting changes in order, then brings the API's in
        let first = try await products.require(id: 1)  // throws RepositoryError notFound if absent
        _ = (two, first)
    }

    /// The reader's store; the in-memory one stands in for it.
    typealias MyStore<Entity: Identifiable & Sendable> = InMemoryRepository<Entity>

    /// "And the tests of a store": compiled here, not run again (RepositoryConformance's own
    /// tests run the suite on the in-memory store).
    @Suite(.disabled("compiled for the README; the conformance suite's own tests run it"))
    struct StoreTests {
        @Test func myStoreConforms() async throws {
            try await RepositoryConformance(makeRepository: { MyStore<ConformanceEntity>() }).run()
        }
    }
}
