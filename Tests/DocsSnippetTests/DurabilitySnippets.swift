import Foundation
import Repositories
import RepositoriesSQLite
import RepositoriesTestSupport
import Testing

/// The Swift snippets of Docs/Durability.md, verbatim; the file store's runs in a temporary
/// directory.
@Suite struct DurabilitySnippets {
    struct Product: Identifiable, Codable, Sendable, Equatable {
        var id: Int
        var name: String
    }

    struct Person: Identifiable, Codable, Sendable {
        var id: UUID
        var name: String
    }

    /// "FileRepository": open, save, save a batch, close.
    func fileRepository(directory: URL, product: Product, all: [Product]) async throws {
        let url = directory.appending(path: "products.store")  // directory: a folder your app owns
        let products = try await FileRepository<Product>(fileURL: url)
        try await products.save(product)  // on disk (fsync) when this returns
        try await products.save(contentsOf: all)  // one record, one write, one fsync
        try await products.close()  // flushes, releases the lock
    }

    @Test func theFileSnippetKeepsWhatItSaved() async throws {
        let directory = try TemporaryDirectory()
        let all = [Product(id: 2, name: "Non"), Product(id: 3, name: "Sut")]
        try await fileRepository(directory: directory.url, product: Product(id: 1, name: "Choy"), all: all)
        let reopened = try await FileRepository<Product>(fileURL: directory.file("products.store"))
        #expect(try await reopened.fetchAll().map(\.id) == [1, 2, 3])
        try await reopened.close()
    }

    /// "Options".
    func options(url: URL) async throws -> FileRepository<Product> {
        let cache = try await FileRepository<Product>(
            fileURL: url,
            options: .init(
                durability: .interval(.seconds(1)),  // .everyWrite (default) | .interval | .never
                lockWait: .seconds(5),  // wait for another holder instead of failing at once
                undecodableRecords: .setAside,  // .fail (default) | .setAside
                compactionThreshold: 1_024,
                codec: .binary))  // a new file's codec: .binary (default) | .json
        return cache
    }

    /// "SQLiteRepository".
    func sqlite(url: URL) async throws {
        let products = try await SQLiteRepository<Product>(fileURL: url)  // WAL, synchronous=FULL
        let scratch = try SQLiteRepository<Product>.inMemory()
        _ = (products, scratch)
    }

    /// "Sharing a file between processes": another process's writes in a live list.
    func sharing(group: URL, render: ([Product]) -> Void) async throws {
        typealias Note = Product
        let notes = try await SQLiteRepository<Note>(fileURL: group.appending(path: "notes.sqlite"))
        let screen = notes.observed(following: notes.committedChanges())
        for try await list in screen.valuesAll() { render(list) }  // the extension's writes too
    }

    /// "UserDefaultsRepository".
    func userDefaults() -> UserDefaultsRepository<Person> {
        let people = UserDefaultsRepository<Person>(key: "people")  // defaults: .standard
        return people
    }
}
