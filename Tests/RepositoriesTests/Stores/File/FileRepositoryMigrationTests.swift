import Foundation
import Repositories
import RepositoriesTestSupport
import Testing

/// Opening a file an older (or newer) version of the app's entity wrote.
@Suite struct FileRepositoryMigrationTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    struct Refused: Error, CustomStringConvertible {
        var description: String { "this upgrade refuses todo 2" }
    }

    /// A copy of a checked-in fixture file, so the original is never opened for writing.
    func fixture(_ name: String) throws -> URL {
        guard
            let fixtures = Bundle.module.url(forResource: "Fixtures", withExtension: nil)?
                .appending(path: "Migrations/FileRepository/\(name)")
        else { throw FixtureMissing(name: name) }
        let copy = directory.file(name)
        try FileManager.default.copyItem(at: fixtures, to: copy)
        return copy
    }

    struct FixtureMissing: Error {
        var name: String
    }

    static func format(of url: URL) throws -> UInt8 {
        try Data(contentsOf: url)[8]
    }

    static let iso8601 = FileRepository<Todo>.Options(
        makeEncoder: {
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .iso8601
            return encoder
        },
        makeDecoder: {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            return decoder
        })

    /// What the journal fixture holds, as version 1 wrote it.
    static let journalFixture = [
        TodoV1.make(1), TodoV1.make(2, title: "todo 2, renamed"), TodoV1.make(4), TodoV1.make(5),
        TodoV1.make(6),
        TodoV1.make(7),
    ]

    // MARK: Files written before versions

    @Test func aFileWrittenBeforeVersionsOpensUnchangedAsVersionOne() async throws {
        let url = try fixture("todos-v1-journal.store")
        let before = try Data(contentsOf: url)
        let store = try await FileRepository<TodoV1>(fileURL: url)
        #expect(try await store.fetchAll() == Self.journalFixture)
        #expect(store.upgradedRecordCount == 0)
        try await store.close()
        #expect(try Data(contentsOf: url) == before, "opening at version 1 must not rewrite the file")

        // Written and compacted at version 1, it stays format 1, which older releases read.
        let writer = try await FileRepository<TodoV1>(fileURL: url)
        try await writer.save(TodoV1.make(8))
        try await writer.compact()
        try await writer.save(TodoV1.make(9))
        try await writer.close()
        #expect(try Self.format(of: url) == 1)
        let reread = try await FileRepository<TodoV1>(fileURL: url)
        #expect(try await reread.fetchAll() == Self.journalFixture + [TodoV1.make(8), TodoV1.make(9)])
        try await reread.close()
    }

    @Test func theJournalFixtureOpensAtVersionTwoWithEveryField() async throws {
        let url = try fixture("todos-v1-journal.store")
        let store = try await FileRepository<Todo>(fileURL: url, migrations: Todo.migrations())
        let todos = try await store.fetchAll()
        #expect(todos == Self.journalFixture.map(Todo.init(upgrading:)))
        // Every field, spelled out once, so a change of the fixture's meaning is seen here.
        let renamed = try #require(todos.first { $0.id == 2 })
        #expect(renamed.text == "todo 2, renamed")
        #expect(renamed.done)
        #expect(renamed.created == Date(timeIntervalSince1970: 1_700_000_000 + 2 * 86_400.5))
        #expect(renamed.tags == ["tag0", "tag1"])
        #expect(renamed.note == "note 2")
        #expect(!renamed.pinned)
        let seven = try #require(todos.last)
        #expect(seven.text == "todo 7 — çay ☕️ 𝄞")
        #expect(!seven.done)
        #expect(seven.tags == ["tag0"])
        #expect(store.upgradedRecordCount == 8, "the records after the clear: 3 saves, 3 in a batch, 2 saves")
        try await store.close()
        #expect(try Self.format(of: url) == 3, "rewritten in the format that records the codec")
        #expect(try Data(contentsOf: url)[10] == EntityCodec.Identifier.json.rawValue, "and still JSON")
    }

    @Test func theCompactedFixtureOpensAtVersionTwoWithTheStoresDateStrategy() async throws {
        let url = try fixture("todos-v1-iso8601-compacted.store")
        let store = try await FileRepository<Todo>(
            fileURL: url, options: Self.iso8601, migrations: Todo.migrations())
        let expected = [1, 2, 3, 5, 6, 7, 9, 10].map { id in
            var todo = Todo(upgrading: TodoV1.make(id))
            // ISO 8601 keeps whole seconds.
            todo.created = Date(timeIntervalSince1970: todo.created.timeIntervalSince1970.rounded(.down))
            return todo
        }
        #expect(try await store.fetchAll() == expected)
        #expect(store.upgradedRecordCount == 8)
        try await store.close()
    }

    // MARK: The upgrade, made durable once

    @Test func anUpgradeIsWrittenOnceAndTheNextOpenReadsItAsItIs() async throws {
        let url = try fixture("todos-v1-journal.store")
        let first = try await FileRepository<Todo>(fileURL: url, migrations: Todo.migrations())
        #expect(first.upgradedRecordCount > 0)
        try await first.close()
        let upgraded = try Data(contentsOf: url)

        let second = try await FileRepository<Todo>(fileURL: url, migrations: Todo.migrations())
        #expect(second.upgradedRecordCount == 0)
        #expect(try await second.fetchAll() == Self.journalFixture.map(Todo.init(upgrading:)))
        try await second.close()
        #expect(try Data(contentsOf: url) == upgraded, "an upgraded file is not rewritten again")
    }

    @Test func aChainUpgradesEachRecordFromTheVersionThatWroteIt() async throws {
        // Records of versions 1 and 2 interleaved in one file: a v1 store's records after a v2 store's.
        let one = directory.file("one.store")
        let v1 = try await FileRepository<TodoV1>(fileURL: one)
        try await v1.save(TodoV1.make(1))
        try await v1.save(contentsOf: [TodoV1.make(3), TodoV1.make(4)])
        try await v1.close()
        let two = directory.file("two.store")
        let v2 = try await FileRepository<Todo>(fileURL: two, migrations: Todo.migrations())
        var pinned = Todo(upgrading: .make(2))
        pinned.pinned = true
        try await v2.save(pinned)
        try await v2.save(Todo(upgrading: .make(3, title: "three at v2")))
        try await v2.close()
        let mixed = directory.file("mixed.store")
        try (Data(contentsOf: two) + Data(contentsOf: one).dropFirst(16)).write(to: mixed)

        let store = try await FileRepository<TodoV3>(fileURL: mixed, migrations: TodoV3.migrations())
        let upgrade = { (todo: Todo) in
            TodoV3(id: todo.id, text: todo.text, pinned: todo.pinned, priority: todo.done ? 0 : 1)
        }
        #expect(
            try await store.fetchAll() == [
                upgrade(pinned), upgrade(Todo(upgrading: .make(3))),
                TodoV3(id: 1, text: TodoV1.make(1).title, pinned: false, priority: 1),
                upgrade(Todo(upgrading: .make(4))),
            ])
        #expect(store.upgradedRecordCount == 5)
        try await store.close()
    }

    // MARK: Refusals

    @Test func dataOfANewerVersionIsRefusedAndTheFileLeftUntouched() async throws {
        let url = directory.file()
        let newer = try await FileRepository<TodoV3>(fileURL: url, migrations: TodoV3.migrations())
        try await newer.save(TodoV3(id: 1, text: "from the future", pinned: true, priority: 2))
        try await newer.close()
        let before = try Data(contentsOf: url)

        for policy in [FileRepository<Todo>.UndecodableRecords.fail, .setAside] {
            let error = await #expect(throws: RepositoryError.self) {
                try await FileRepository<Todo>(
                    fileURL: url, options: .init(undecodableRecords: policy), migrations: Todo.migrations())
            }
            #expect(error?.code == .writtenByNewerVersion)
            #expect(error?.location == url.path)
            #expect(error?.reason.contains("version 3") == true)
            #expect(error?.reason.contains("up to 2") == true)
            #expect(error?.recovery?.contains("Update the app") == true)
        }
        #expect(try Data(contentsOf: url) == before)
        #expect(!FileManager.default.fileExists(atPath: url.path + ".undecodable.jsonl"))
    }

    @Test func aRecordNoUpgradeReadsThrowsNamingItsVersionAndTheWayOut() async throws {
        let url = try fixture("todos-v1-journal.store")
        let before = try Data(contentsOf: url)
        let strict = try Migrations<Todo>(
            .upgrade(from: 1) { (old: TodoV1) in
                if old.id == 2 { throw Refused() }
                return Todo(upgrading: old)
            })
        let error = await #expect(throws: RepositoryError.self) {
            try await FileRepository<Todo>(fileURL: url, migrations: strict)
        }
        #expect(error?.code == .decodingFailed)
        #expect(error?.record?.contains("id 2") == true)
        #expect(error?.record?.contains("version 1") == true)
        #expect(error?.underlying is Refused)
        #expect(error?.recovery?.contains("upgrade from version 1") == true)
        #expect(error?.recovery?.contains(".setAside") == true)
        #expect(try Data(contentsOf: url) == before)
    }

    /// Many records are decoded in chunks on every core; a record at fault in a later chunk
    /// is still the one named, and with `.setAside` the others of its chunk still open.
    @Test func aBadRecordAmongManyDecodedAtOnceIsNamedOrSetAsideAlone() async throws {
        let url = directory.file("many.store")
        let count = 10_000
        let v1 = try await FileRepository<TodoV1>(fileURL: url)
        try await v1.save(contentsOf: (1...count).map { TodoV1.make($0) })
        try await v1.close()
        let before = try Data(contentsOf: url)
        let strict = try Migrations<Todo>(
            .upgrade(from: 1) { (old: TodoV1) in
                if old.id == 9_000 { throw Refused() }
                return Todo(upgrading: old)
            })

        let error = await #expect(throws: RepositoryError.self) {
            try await FileRepository<Todo>(fileURL: url, migrations: strict)
        }
        #expect(error?.record?.contains("id 9000") == true, "\(error?.record ?? "")")
        #expect(try Data(contentsOf: url) == before)

        let todos = try await FileRepository<Todo>(
            fileURL: url, options: .init(undecodableRecords: .setAside), migrations: strict)
        #expect(try await todos.count() == count - 1)
        #expect(try await todos.fetchAll().map(\.id) == Array(1...count).filter { $0 != 9_000 })
        #expect(try await todos.setAsideRecords().map(\.id) == ["9000"])
        try await todos.close()
    }

    @Test func aChangedModelWithoutAnUpgradeSuggestsMigrations() async throws {
        let url = try fixture("todos-v1-journal.store")
        let error = await #expect(throws: RepositoryError.self) {
            try await FileRepository<Todo>(fileURL: url)
        }
        #expect(error?.code == .decodingFailed)
        #expect(error?.recovery?.contains("Migrations") == true)
        #expect(error?.recovery?.contains(".setAside") == true)
    }
}
