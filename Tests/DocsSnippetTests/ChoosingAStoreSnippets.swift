import Foundation
import Repositories
import RepositoriesHTTP
import RepositoriesSQLite

/// The Swift snippet of Docs/ChoosingAStore.md, verbatim.
struct ChoosingAStoreSnippets {
    struct Product: Identifiable, Codable, Sendable {
        var id: Int
        var name: String
    }

    struct Person: Identifiable, Codable, Sendable {
        var id: UUID
        var name: String
    }

    struct Todo: Identifiable, Codable, Sendable {
        var id: UUID
        var title: String
    }

    struct Meteorite: Identifiable, Codable, Sendable {
        var id: Int
        var name: String
    }

    /// "In code": one store of each kind; `documents` and `caches` are the app's folders.
    func inCode(documents: URL, caches: URL) async throws {
        // Tests, previews and caches.
        let scratch = InMemoryRepository<Product>()
        let recent = InMemoryRepository<Product>(capacity: 500)  // LRU eviction past 500

        // Settings and short lists: the articles' store, with typed errors.
        let people = UserDefaultsRepository<Person>(key: "people")

        // App data that must never be lost.
        let todos = try await FileRepository<Todo>(fileURL: documents.appending(path: "todos.store"))

        // Large data, or data another process writes at the same time.
        let meteorites = try await SQLiteRepository<Meteorite>(
            fileURL: caches.appending(path: "meteorites.sqlite"))

        // The server's copy.
        let products = HTTPRepository<Product>(baseURL: URL(string: "https://api.example.com/products")!)
        _ = (scratch, recent, people, todos, meteorites, products)
    }
}
