import Foundation
import Repositories
import RepositoriesTestSupport
import Testing

/// An app update changes the entity while changes made offline by the earlier release wait
/// in the outbox: they are upgraded on open, sent as the new version, and never lost.
@Suite struct OutboxMigrationTests {
    /// What the earlier release left on the device: its local store and outbox, holding an
    /// edit of todo 1 (made on the server's copy), a new todo 10 and a delete of todo 2, none
    /// of them sent; and the keys those changes carry.
    private struct EarlierRelease {
        let directory: TemporaryDirectory
        let keys: [Int: String]
        var storeURL: URL { directory.url.appending(path: "todos.store") }
        var outboxURL: URL { directory.url.appending(path: "todos.outbox") }

        static let server = (1...3).map { TodoV1.make($0) }

        init() async throws {
            directory = try TemporaryDirectory()
            let remote = InMemoryRepository<TodoV1>()
            try await remote.save(contentsOf: Self.server)
            let local = try await FileRepository<TodoV1>(
                fileURL: directory.url.appending(path: "todos.store"))
            let outbox = try await Outbox<TodoV1>(fileURL: directory.url.appending(path: "todos.outbox"))
            let todos = remote.offlineFirst(
                local: local, outbox: outbox, conflicts: .lastWriterWins, automaticSync: nil)
            try await todos.sync()
            var edited = Self.server[0]
            edited.title = "edited offline by version 1"
            try await todos.save(edited)
            try await todos.save(TodoV1.make(10, title: "made offline by version 1"))
            try await todos.delete(id: 2)
            keys = Dictionary(
                uniqueKeysWithValues: try await outbox.changes().map { ($0.id, $0.idempotencyKey) })
            try await outbox.close()
            try await local.close()
        }
    }

    @Test func changesAnEarlierReleaseQueuedAreUpgradedAndSentAsTheCurrentVersion() async throws {
        let earlier = try await EarlierRelease()
        let migrations = try Todo.migrations()
        let outbox = try await Outbox<Todo>(fileURL: earlier.outboxURL, migrations: migrations)
        let changes = try await outbox.changes()

        #expect(changes.map(\.id) == [1, 10, 2], "every queued change kept, in its order")
        #expect(Dictionary(uniqueKeysWithValues: changes.map { ($0.id, $0.idempotencyKey) }) == earlier.keys)
        var edited = EarlierRelease.server[0]
        edited.title = "edited offline by version 1"
        #expect(changes[0].kind == .save(Todo(upgrading: edited)))
        #expect(changes[0].base == Todo(upgrading: EarlierRelease.server[0]), "the base is upgraded too")
        #expect(
            changes[1].kind == .save(Todo(upgrading: TodoV1.make(10, title: "made offline by version 1"))))
        #expect(changes[2].kind == .delete)

        // The server moved to version 2 as well; the upgraded changes go out as version 2.
        let remote = InMemoryRepository<Todo>()
        try await remote.save(contentsOf: EarlierRelease.server.map(Todo.init(upgrading:)))
        let local = try await FileRepository<Todo>(fileURL: earlier.storeURL, migrations: migrations)
        let todos = remote.offlineFirst(
            local: local, outbox: outbox, conflicts: .lastWriterWins, automaticSync: nil)
        try await todos.sync()
        #expect(try await outbox.changes().isEmpty)
        #expect(try await remote.fetchAll().map(\.id).sorted() == [1, 3, 10])
        #expect(try await remote.fetch(id: 1)?.text == "edited offline by version 1")
        #expect(try await remote.fetch(id: 10)?.pinned == false)
        try await outbox.close()
        try await local.close()
    }

    @Test func theUpgradeIsWrittenOnceSoTheNextOpenRunsNoUpgrade() async throws {
        let earlier = try await EarlierRelease()
        let upgraded = try await Outbox<Todo>(fileURL: earlier.outboxURL, migrations: try Todo.migrations())
        let changes = try await upgraded.changes()
        try await upgraded.close()

        let refusing = try Migrations<Todo>(
            .upgrade(from: 1) { (_: TodoV1) -> Todo in
                throw RepositoryError.rejected("no record should need the upgrade any more")
            })
        let reopened = try await Outbox<Todo>(fileURL: earlier.outboxURL, migrations: refusing)
        let again = try await reopened.changes()
        #expect(again.map(\.idempotencyKey) == changes.map(\.idempotencyKey))
        #expect(again.map(\.kind) == changes.map(\.kind))
        #expect(again.map(\.base) == changes.map(\.base))
        try await reopened.close()
    }

    @Test func anOutboxANewerReleaseWroteIsRefusedAndLeftAsItWas() async throws {
        let earlier = try await EarlierRelease()
        let newer = try await Outbox<Todo>(fileURL: earlier.outboxURL, migrations: try Todo.migrations())
        try await newer.close()
        let before = try Data(contentsOf: earlier.outboxURL)

        let error = await #expect(throws: RepositoryError.self) {
            _ = try await Outbox<TodoV1>(fileURL: earlier.outboxURL)
        }
        #expect(error?.code == .writtenByNewerVersion)
        #expect(
            try Data(contentsOf: earlier.outboxURL) == before, "the newer release's changes are untouched")
    }

    @Test func aQueuedChangeNoUpgradeReadsFailsTheOpenNamingItAndLeavesTheFile() async throws {
        let earlier = try await EarlierRelease()
        let before = try Data(contentsOf: earlier.outboxURL)
        let failing = try Migrations<Todo>(
            .upgrade(from: 1) { (old: TodoV1) -> Todo in
                guard old.id != 10 else { throw RepositoryError.rejected("todo 10 cannot be upgraded") }
                return Todo(upgrading: old)
            })

        let error = await #expect(throws: RepositoryError.self) {
            _ = try await Outbox<Todo>(fileURL: earlier.outboxURL, migrations: failing)
        }
        #expect(error?.code == .decodingFailed)
        let message = error.map { "\($0)" } ?? ""
        #expect(message.contains("id 10"), "the error names the change's entity: \(message)")
        #expect(error?.recovery?.contains("never set aside") == true, "\(error?.recovery ?? "")")
        #expect(try Data(contentsOf: earlier.outboxURL) == before, "a pending change is never dropped")
    }

    /// A copy of the checked-in outbox an earlier release wrote.
    private static func fixture(in directory: TemporaryDirectory) throws -> URL {
        let fixture = try #require(
            Bundle.module.url(forResource: "Fixtures", withExtension: nil)?
                .appending(path: "Migrations/Outbox/todos-v1.outbox"))
        let copy = directory.url.appending(path: "todos.outbox")
        try FileManager.default.copyItem(at: fixture, to: copy)
        return copy
    }

    @Test func theCheckedInVersionOneOutboxStillOpensAsItWasAndUpgraded() async throws {
        let directory = try TemporaryDirectory()
        let url = try Self.fixture(in: directory)

        let asWritten = try await Outbox<TodoV1>(fileURL: url)
        let original = try await asWritten.changes()
        try await asWritten.close()
        #expect(original.map(\.id) == [1, 10, 2, 11])
        var edited = TodoV1.make(1)
        edited.title = "edited offline by version 1"
        #expect(original[0].kind == .save(edited) && original[0].base == TodoV1.make(1))
        #expect(original[1].kind == .save(TodoV1.make(10, title: "made offline by version 1")))
        #expect(original[2].kind == .delete && original[2].base == TodoV1.make(2))

        let upgraded = try await Outbox<TodoV3>(fileURL: url, migrations: try TodoV3.migrations())
        let changes = try await upgraded.changes()
        try await upgraded.close()
        let chain = try TodoV3.migrations()
        func v3(_ old: TodoV1) throws -> TodoV3 {
            try chain.decode(JSONEncoder().encode(old), writtenBy: 1, using: JSONDecoder())
        }
        #expect(changes.map(\.id) == original.map(\.id))
        #expect(changes.map(\.idempotencyKey) == original.map(\.idempotencyKey))
        let (editedV3, oneV3, twoV3) = (try v3(edited), try v3(TodoV1.make(1)), try v3(TodoV1.make(2)))
        #expect(changes[0].kind == .save(editedV3) && changes[0].base == oneV3)
        #expect(changes[2].kind == .delete && changes[2].base == twoV3)
    }
}
