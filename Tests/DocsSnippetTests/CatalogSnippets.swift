import Foundation
import Repositories
import RepositoriesHTTP
import RepositoriesSQLite
import RepositoriesTesting
import Testing

/// The Swift snippets of the DocC landing pages in Docs/Catalogs, verbatim, one namespace a
/// page.
enum CatalogSnippets {
    struct Product: Identifiable, Codable, Sendable {
        var id: Int
        var price: Double
    }

    /// Repositories.docc/Repositories.md.
    static func repositories(api: HTTPRepository<Product>, mirrorURL: URL) async throws -> [Product] {
        let products = api.fallback(to: try await FileRepository<Product>(fileURL: mirrorURL))
            .cached(in: InMemoryRepository<Cached<Product>>(), timeToLive: .seconds(60))

        let cheapest = try await products.fetch(Query<Product>().sorted(by: \.price).limit(3))
        return cheapest
    }

    struct Todo: Identifiable, Codable, Sendable {
        var id: Int
        var title: String
    }

    /// RepositoriesHTTP.docc/RepositoriesHTTP.md.
    static func repositoriesHTTP(mirrorURL: URL) async throws -> some Repository<Todo, Int> {
        let todos = HTTPRepository<Todo>(baseURL: URL(string: "https://api.example.com/todos")!)
        let mirrored = todos.fallback(to: try await FileRepository<Todo>(fileURL: mirrorURL))
        return mirrored
    }

    struct Meteorite: Identifiable, Codable, Sendable {
        var id: Int
        var name: String
    }

    /// RepositoriesSQLite.docc/RepositoriesSQLite.md.
    static func repositoriesSQLite(databaseURL: URL, imported: [Meteorite]) async throws {
        let meteorites = try await SQLiteRepository<Meteorite>(fileURL: databaseURL)
        try await meteorites.save(contentsOf: imported)  // one transaction
    }

    /// The reader's store; the in-memory one stands in for it.
    typealias MyStore<Entity: Identifiable & Sendable> = InMemoryRepository<Entity>

    /// RepositoriesTesting.docc/RepositoriesTesting.md.
    @Suite(.disabled("compiled for the DocC landing page; the conformance suite's own tests run it"))
    struct TestingLandingPage {
        @Test func conforms() async throws {
            try await RepositoryConformance(makeRepository: { MyStore<ConformanceEntity>() }).run()
        }
    }
}
