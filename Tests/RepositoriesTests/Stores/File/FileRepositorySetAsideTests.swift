import Foundation
import Repositories
import RepositoriesTestSupport
import Testing

/// Records no upgrade can read: set aside, listed with why, exported, restored or discarded.
@Suite struct FileRepositorySetAsideTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    struct Refused: Error, CustomStringConvertible {
        var id: Int
        var description: String { "this upgrade refuses todo \(id)" }
    }

    static let setAside = FileRepository<Todo>.Options(undecodableRecords: .setAside)

    /// Version 2's chain with a bug: it cannot read the todos in `refused`.
    static func buggy(refusing refused: Set<Int>) throws -> Migrations<Todo> {
        try Migrations(
            .upgrade(from: 1) { (old: TodoV1) in
                if refused.contains(old.id) { throw Refused(id: old.id) }
                return Todo(upgrading: old)
            })
    }

    /// A version 1 store: todo 2 saved, then replaced; todos 4 and 5 saved once.
    func versionOneStore() async throws -> (url: URL, bytes: Data) {
        let url = directory.file("todos.store")
        let v1 = try await FileRepository<TodoV1>(fileURL: url)
        try await v1.save(TodoV1.make(2))
        try await v1.save(contentsOf: [TodoV1.make(4), TodoV1.make(5)])
        try await v1.save(TodoV1.make(2, title: "todo 2, renamed"))
        try await v1.close()
        return (url, try Data(contentsOf: url))
    }

    @Test func aRecordNoUpgradeReadsIsListedWithItsVersionBytesAndError() async throws {
        let (url, original) = try await versionOneStore()
        let store = try await FileRepository<Todo>(
            fileURL: url, options: Self.setAside, migrations: Self.buggy(refusing: [2]))
        #expect(try await store.fetchAll() == [Todo(upgrading: .make(4)), Todo(upgrading: .make(5))])
        #expect(store.setAsideRecordCount == 1, "only the entity's last record: the first was replaced")

        let records = try await store.setAsideRecords()
        let record = try #require(records.first)
        #expect(records.count == 1)
        #expect(record.id == "2")
        #expect(record.version == 1)
        #expect(record.codec == .binary, "the codec of the store's file")
        #expect(
            try EntityCodec.binary.decode(TodoV1.self, from: record.data)
                == TodoV1.make(2, title: "todo 2, renamed"))
        #expect(original.range(of: record.data) != nil, "the bytes exactly as version 1 stored them")
        #expect(record.error.code == .decodingFailed)
        #expect(record.error.reason.contains("this upgrade refuses todo 2"))
        #expect(record.error.recovery?.contains("restoreSetAside") == true)
        #expect(store.setAsideFileURL.path == url.path + ".undecodable.jsonl")
        try await store.close()
    }

    @Test func aSetAsideRecordIsRestoredOnceAFixedUpgradeReadsIt() async throws {
        let (url, _) = try await versionOneStore()
        let buggy = try await FileRepository<Todo>(
            fileURL: url, options: Self.setAside, migrations: Self.buggy(refusing: [2]))
        try await buggy.close()

        // The next release fixes the upgrade.
        let store = try await FileRepository<Todo>(
            fileURL: url, options: Self.setAside, migrations: Todo.migrations())
        #expect(store.setAsideRecordCount == 0, "the store was rewritten without it")
        #expect(try await store.fetch(id: 2) == nil)
        let record = try #require(try await store.setAsideRecords().first)
        let restored = try await store.restoreSetAside(record)
        #expect(restored == Todo(upgrading: .make(2, title: "todo 2, renamed")))
        #expect(try await store.fetch(id: 2) == restored)
        #expect(try await store.setAsideRecords().isEmpty)
        #expect(!FileManager.default.fileExists(atPath: store.setAsideFileURL.path))

        let again = await #expect(throws: RepositoryError.self) { try await store.restoreSetAside(record) }
        #expect(again?.code == .rejected)
        try await store.close()

        let reopened = try await FileRepository<Todo>(fileURL: url, migrations: Todo.migrations())
        #expect(try await reopened.fetch(id: 2) == restored, "the restore was saved durably")
        try await reopened.close()
    }

    @Test func restoringARecordStillUnreadableChangesNothing() async throws {
        let (url, _) = try await versionOneStore()
        let store = try await FileRepository<Todo>(
            fileURL: url, options: Self.setAside, migrations: Self.buggy(refusing: [2]))
        let sideFile = try Data(contentsOf: store.setAsideFileURL)
        let record = try #require(try await store.setAsideRecords().first)

        let error = await #expect(throws: RepositoryError.self) { try await store.restoreSetAside(record) }
        #expect(error?.code == .decodingFailed)
        #expect(error?.underlying is Refused)
        #expect(error?.recovery?.contains("stays set aside") == true)
        #expect(try await store.fetch(id: 2) == nil)
        #expect(try Data(contentsOf: store.setAsideFileURL) == sideFile)
        try await store.close()
    }

    @Test func discardingRemovesThatRecordOnly() async throws {
        let (url, _) = try await versionOneStore()
        let store = try await FileRepository<Todo>(
            fileURL: url, options: Self.setAside, migrations: Self.buggy(refusing: [2, 4]))
        let records = try await store.setAsideRecords()
        #expect(records.map(\.id) == ["4", "2"])
        try await store.discardSetAside(records[0])
        #expect(try await store.setAsideRecords().map(\.id) == ["2"])
        try await store.close()
    }

    @Test func anOpenThatCrashedBeforeItsRewriteDoesNotListARecordTwice() async throws {
        let (url, original) = try await versionOneStore()
        let first = try await FileRepository<Todo>(
            fileURL: url, options: Self.setAside, migrations: Self.buggy(refusing: [2]))
        try await first.close()
        try original.write(to: url)  // as if the rewrite after the side file never happened

        let second = try await FileRepository<Todo>(
            fileURL: url, options: Self.setAside, migrations: Self.buggy(refusing: [2]))
        #expect(try await second.setAsideRecords().count == 1)
        try await second.close()
    }

    @Test func linesSetAsideBeforeVersionsReadAsVersionOne() async throws {
        let url = directory.file("todos.store")
        let store = try await FileRepository<Todo>(fileURL: url, migrations: Todo.migrations())
        let json = String(decoding: try JSONEncoder().encode(TodoV1.make(9)), as: UTF8.self)
        let line = try JSONSerialization.data(
            withJSONObject: ["offset": "16", "error": "keyNotFound(text)", "json": json],
            options: [.sortedKeys])
        try (line + Data("\n".utf8)).write(to: store.setAsideFileURL)

        let record = try #require(try await store.setAsideRecords().first)
        #expect(record.version == 1)
        #expect(record.id == "9")
        #expect(try await store.restoreSetAside(record) == Todo(upgrading: .make(9)))
        try await store.close()
    }
}
