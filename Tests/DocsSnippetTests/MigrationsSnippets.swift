import Foundation
import Repositories
import RepositoriesSQLite
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

    /// "List, export, restore".
    func setAside(url: URL, exports: URL, migrations: Migrations<Todo>) async throws -> FileRepository<Todo> {
        let todos = try await FileRepository<Todo>(
            fileURL: url, options: .init(undecodableRecords: .setAside), migrations: migrations)
        for record in try await todos.setAsideRecords() {
            print(record.id ?? "?", record.version, record.error.localizedDescription)
            let name = "todo-\(record.id ?? "unknown").\(record.codec == .json ? "json" : "bin")"
            try record.data.write(to: exports.appending(path: name))
        }
        // A later release, whose migrations read them:
        for record in try await todos.setAsideRecords() {
            try await todos.restoreSetAside(record)  // saved durably, then taken out of the side file
        }
        return todos
    }

    @Test func theSetAsideSnippetExportsAndRestoresWhatItCannotReadOnOpen() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("todos.store")
        let old = try await FileRepository<TodoV1>(fileURL: url)
        try await old.save(TodoV1(id: 7, title: "tea"))
        try await old.close()
        let refusing = try Migrations<Todo>(
            .upgrade(from: 1) { (old: TodoV1) -> TodoV2 in throw RepositoryError.rejected("not yet") },
            .upgrade(from: 2) { (old: TodoV2) in Todo(id: old.id, text: old.title, done: old.done) })
        let first = try await FileRepository<Todo>(
            fileURL: url, options: .init(undecodableRecords: .setAside), migrations: refusing)
        #expect(first.setAsideRecordCount == 1)
        try await first.close()

        let todos = try await setAside(url: url, exports: directory.url, migrations: Self.migrations())
        #expect(try await todos.fetchAll() == [Todo(id: 7, text: "tea", done: false)])
        #expect(
            FileManager.default.fileExists(atPath: directory.file("todo-7.bin").path),
            "a binary store exports its bytes as .bin")
        try await todos.close()
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

    /// "SQLiteRepository": open with the chain.
    func sqliteRepository(directory: URL, migrations: Migrations<Todo>) async throws -> SQLiteRepository<Todo>
    {
        let todos = try await SQLiteRepository<Todo>(
            fileURL: directory.appending(path: "todos.sqlite"), migrations: migrations)
        let upgraded = todos.upgradedRowCount  // rows upgraded by this open; 0 the next time
        #expect(upgraded == 1)
        return todos
    }

    @Test func aVersionOneTableOpensUpgradedThroughTheGuidesChain() async throws {
        let directory = try TemporaryDirectory()
        let old = try await SQLiteRepository<TodoV1>(
            fileURL: directory.file("todos.sqlite"), options: SQLiteOptions(tableName: "Todo"))
        try await old.save(TodoV1(id: 1, title: "tea"))
        try await old.close()
        let todos = try await sqliteRepository(directory: directory.url, migrations: Self.migrations())
        #expect(try await todos.fetchAll() == [Todo(id: 1, text: "tea", done: false)])
        try await todos.close()
    }

    /// "Outbox": the offline-first stack with one chain for the local store and the outbox.
    func offlineFirst(
        directory: URL, api: InMemoryRepository<Todo>
    ) async throws -> (OfflineFirstRepository<InMemoryRepository<Todo>, FileRepository<Todo>>, Outbox<Todo>) {
        let migrations = try Self.migrations()
        let local = try await FileRepository<Todo>(
            fileURL: directory.appending(path: "todos.store"), migrations: migrations)
        let outbox = try await Outbox<Todo>(
            fileURL: directory.appending(path: "todos.outbox"), migrations: migrations)
        let todos = api.offlineFirst(local: local, outbox: outbox, conflicts: .lastWriterWins)
        return (todos, outbox)
    }

    @Test func theOutboxSnippetOpensTheStackAtVersionThreeAndSyncs() async throws {
        let directory = try TemporaryDirectory()
        let api = InMemoryRepository<Todo>()
        let (todos, outbox) = try await offlineFirst(directory: directory.url, api: api)
        todos.stopAutomaticSync()
        try await todos.save(Todo(id: 1, text: "tea", done: false))
        try await todos.sync()
        #expect(try await api.fetch(id: 1)?.text == "tea")
        #expect(try await outbox.changes().isEmpty)
    }
}
