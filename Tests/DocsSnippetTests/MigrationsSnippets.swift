import Foundation
import Repositories
import RepositoriesTestSupport
import Testing

/// The Swift snippets of Docs/Migrations.md, verbatim; the file store's run in a temporary
/// directory.
@Suite struct MigrationsSnippets {
    struct TodoV1: Codable, Identifiable, Sendable {
        var id: Int
        var title: String
    }

    struct TodoV2: Codable, Sendable {
        var id: Int
        var title: String
        var done: Bool
    }

    struct Todo: Codable, Identifiable, Sendable, Equatable {
        var id: Int
        var text: String
        var done: Bool
    }

    static func migrations() throws -> Migrations<Todo> {
        try Migrations<Todo>(
            .upgrade(from: 1) { (old: TodoV1) in TodoV2(id: old.id, title: old.title, done: false) },
            .upgrade(from: 2) { (old: TodoV2) in Todo(id: old.id, text: old.title, done: old.done) })
    }

    /// "The chain": the shapes and the chain, as the guide writes them (local types).
    func chain() throws -> Int {
        struct TodoV1: Codable, Sendable {  // what version 1 of the app wrote
            var id: Int
            var title: String
        }

        struct TodoV2: Codable, Sendable {  // version 2 added `done`
            var id: Int
            var title: String
            var done: Bool
        }

        struct Todo: Codable, Identifiable, Sendable {  // version 3 (today) renamed `title`
            var id: Int
            var text: String
            var done: Bool
        }

        let migrations = try Migrations<Todo>(
            .upgrade(from: 1) { (old: TodoV1) in TodoV2(id: old.id, title: old.title, done: false) },
            .upgrade(from: 2) { (old: TodoV2) in Todo(id: old.id, text: old.title, done: old.done) })
        // migrations.currentVersion == 3
        return migrations.currentVersion
    }

    @Test func theChainIsAtVersionThree() throws {
        #expect(try chain() == 3)
    }

    func showUpdateRequired(_ message: String) {}

    /// "Data from a newer version".
    func openRefusingNewer(url: URL, migrations: Migrations<Todo>) async throws -> FileRepository<Todo> {
        do {
            return try await FileRepository<Todo>(fileURL: url, migrations: migrations)
        } catch let error as RepositoryError where error.code == .writtenByNewerVersion {
            // "…written by version 4 of the entity, and this app knows versions up to 3"
            showUpdateRequired(error.localizedDescription)
            throw error
        }
    }

    /// "FileRepository": open with the chain.
    func fileRepository(directory: URL, migrations: Migrations<Todo>) async throws -> FileRepository<Todo> {
        let todos = try await FileRepository<Todo>(
            fileURL: directory.appending(path: "todos.store"), migrations: migrations)
        let upgraded = todos.upgradedRecordCount  // records upgraded by this open; 0 the next time
        let version = todos.migrations.currentVersion  // 3
        #expect(upgraded == 1 && version == 3)
        return todos
    }

    @Test func aVersionOneFileOpensUpgradedThroughTheGuidesChain() async throws {
        let directory = try TemporaryDirectory()
        let old = try await FileRepository<TodoV1>(fileURL: directory.file("todos.store"))
        try await old.save(TodoV1(id: 1, title: "tea"))
        try await old.close()
        let todos = try await fileRepository(directory: directory.url, migrations: Self.migrations())
        #expect(todos.upgradedRecordCount == 1)
        #expect(try await todos.fetchAll() == [Todo(id: 1, text: "tea", done: false)])
        try await todos.close()
    }
}
