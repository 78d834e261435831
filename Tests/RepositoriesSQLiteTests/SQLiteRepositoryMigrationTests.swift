import Foundation
import Repositories
import RepositoriesSQLite
import RepositoriesTestSupport
import Testing

/// The migration tests' entity in its three versions (see `MigrationFixtures`).
typealias TodoV1 = MigrationFixtures.TodoV1
typealias Todo = MigrationFixtures.Todo
typealias TodoV3 = MigrationFixtures.TodoV3

/// Opening a table an older (or newer) version of the app's entity wrote.
@Suite struct SQLiteRepositoryMigrationTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    struct Refused: Error, CustomStringConvertible {
        var description: String { "this upgrade refuses todo 2" }
    }

    struct FixtureMissing: Error {
        var name: String
    }

    /// A copy of a checked-in fixture database, so the original is never opened for writing.
    func fixture(_ name: String) throws -> URL {
        guard
            let fixture = Bundle.module.url(forResource: "Fixtures", withExtension: nil)?
                .appending(path: "Migrations/\(name)")
        else { throw FixtureMissing(name: name) }
        let copy = directory.file(name)
        try FileManager.default.copyItem(at: fixture, to: copy)
        return copy
    }

    /// What the fixture holds, in insertion order, as version 1 wrote it.
    static let fixtureTodos = [
        TodoV1.make(1), TodoV1.make(2, title: "todo 2, renamed"), TodoV1.make(4), TodoV1.make(5),
        TodoV1.make(6),
    ]

    static let table = SQLiteOptions(tableName: "Todo")

    /// The table `Todo`, created in `codec`.
    static func table(_ codec: EntityCodec.Identifier) -> SQLiteOptions {
        SQLiteOptions(tableName: "Todo", codec: codec)
    }

    /// A new database whose table `Todo` holds `todos` at version 1, in `codec`.
    func versionOneTable(
        _ todos: [TodoV1] = Self.fixtureTodos, codec: EntityCodec.Identifier = .binary
    ) async throws -> URL {
        let url = directory.file()
        let store = try await SQLiteRepository<TodoV1>(fileURL: url, options: Self.table(codec))
        try await store.save(contentsOf: todos)
        try await store.close()
        return url
    }

    static func tables(in url: URL) throws -> Set<String> {
        Set(try RawDatabase(url).strings("SELECT name FROM sqlite_master WHERE type = 'table'"))
    }

    // MARK: Tables written before versions

    @Test func aTableWrittenBeforeVersionsOpensUnchangedAsVersionOne() async throws {
        let url = try fixture("todos-v1.sqlite")
        let rows = #"SELECT seq || ' ' || id || ' ' || hex(body) || ' ' || crc FROM "Todo" ORDER BY seq"#
        let before = try RawDatabase(url).strings(rows)
        let store = try await SQLiteRepository<TodoV1>(fileURL: url, options: Self.table)
        #expect(try await store.fetchAll() == Self.fixtureTodos)
        #expect(store.upgradedRowCount == 0)
        #expect(store.migrations.currentVersion == 1)
        try await store.close()
        #expect(try RawDatabase(url).strings(rows) == before, "opening at version 1 must not change a row")
        // The change log is made once (see SQLiteRepositoryChangeFeedFileTests); no stamp.
        #expect(
            try Self.tables(in: url) == ["Todo", "repositories_changes_Todo", "repositories_change_feeds"],
            "no stamp is written at version 1")
        let opened = try Data(contentsOf: url)
        try await SQLiteRepository<TodoV1>(fileURL: url, options: Self.table).close()
        #expect(try Data(contentsOf: url) == opened, "opening again at version 1 must not write the file")
    }

    @Test func theFixtureOpensAtVersionTwoWithEveryField() async throws {
        let url = try fixture("todos-v1.sqlite")
        let store = try await SQLiteRepository<Todo>(
            fileURL: url, options: Self.table, migrations: Todo.migrations())
        #expect(store.upgradedRowCount == 5)
        let todos = try await store.fetchAll()
        #expect(todos == Self.fixtureTodos.map(Todo.init(upgrading:)), "every row, in insertion order")
        // Every field, spelled out once, so a change of the fixture's meaning is seen here.
        let renamed = try #require(todos.first { $0.id == 2 })
        #expect(renamed.text == "todo 2, renamed")
        #expect(renamed.done)
        #expect(renamed.created == Date(timeIntervalSince1970: 1_700_000_000 + 2 * 86_400.5))
        #expect(renamed.tags == ["tag0", "tag1"])
        #expect(renamed.note == "note 2")
        #expect(!renamed.pinned)
        let six = try #require(todos.last)
        #expect(six.id == 6)
        #expect(six.text == "todo 6 — çay ☕️ 𝄞")
        #expect(six.done)
        #expect(six.tags == [])
        #expect(six.note == nil)
        #expect(try await store.fetch(id: 3) == nil, "the deleted todo stays deleted")
        #expect(try await store.fetch(id: 5) == Todo(upgrading: .make(5)))
        try await store.close()
    }

    // MARK: The upgrade, made durable once

    @Test func anUpgradeIsWrittenOnceAndTheNextOpenUpgradesNothing() async throws {
        let url = try fixture("todos-v1.sqlite")
        let first = try await SQLiteRepository<Todo>(
            fileURL: url, options: Self.table, migrations: Todo.migrations())
        #expect(first.upgradedRowCount == 5)
        try await first.close()
        do {
            let raw = try RawDatabase(url)
            let stamp = "SELECT version FROM repositories_entity_versions WHERE table_name = 'Todo'"
            #expect(try raw.strings(stamp) == ["2"])
            #expect(try raw.strings("SELECT body FROM Todo WHERE id = 1").first?.contains("\"text\"") == true)
        }
        let upgraded = try Data(contentsOf: url)

        let second = try await SQLiteRepository<Todo>(
            fileURL: url, options: Self.table, migrations: Todo.migrations())
        #expect(second.upgradedRowCount == 0)
        #expect(try await second.fetchAll() == Self.fixtureTodos.map(Todo.init(upgrading:)))
        try await second.close()
        #expect(try Data(contentsOf: url) == upgraded, "an upgraded table is not rewritten again")
    }

    @Test(arguments: [EntityCodec.Identifier.binary, .json])
    func aChainUpgradesTheRowsFromTheVersionThatWroteThem(codec: EntityCodec.Identifier) async throws {
        // Version 1 straight to 3, through both upgrades.
        let fromOne = try await versionOneTable(codec: codec)
        let three = try await SQLiteRepository<TodoV3>(
            fileURL: fromOne, options: Self.table, migrations: TodoV3.migrations())
        #expect(three.upgradedRowCount == 5)
        let expected = Self.fixtureTodos.map { old in
            TodoV3(id: old.id, text: old.title, pinned: false, priority: old.done ? 0 : 1)
        }
        #expect(try await three.fetchAll() == expected)
        #expect(three.codec.identifier == codec, "the upgrade keeps the table's codec")
        try await three.close()

        // Version 2 (after its own upgrade and a save at version 2) to 3, through the second only.
        let fromTwo = try await versionOneTable(codec: codec)
        let two = try await SQLiteRepository<Todo>(
            fileURL: fromTwo, options: Self.table, migrations: Todo.migrations())
        var pinned = Todo(upgrading: .make(7))
        pinned.pinned = true
        try await two.save(pinned)
        try await two.close()
        let reopened = try await SQLiteRepository<TodoV3>(
            fileURL: fromTwo, options: Self.table, migrations: TodoV3.migrations())
        #expect(reopened.upgradedRowCount == 6)
        #expect(
            try await reopened.fetchAll()
                == expected + [TodoV3(id: 7, text: pinned.text, pinned: true, priority: 1)])
        try await reopened.close()
    }

    @Test func aNewTableIsStampedWithTheCurrentVersion() async throws {
        let url = directory.file()
        let store = try await SQLiteRepository<Todo>(
            fileURL: url, options: Self.table, migrations: Todo.migrations())
        #expect(store.upgradedRowCount == 0)
        try await store.save(Todo(upgrading: .make(1)))
        try await store.close()
        let error = try await #require(throws: RepositoryError.self) {
            _ = try await SQLiteRepository<TodoV1>(fileURL: url, options: Self.table)
        }
        #expect(error.code == .writtenByNewerVersion, "version 1 must not read rows version 2 wrote")
    }

    // MARK: Newer data

    @Test func dataOfANewerVersionIsRefusedAndTheFileLeftUntouched() async throws {
        let url = try fixture("todos-v1.sqlite")
        let upgrade = try await SQLiteRepository<TodoV3>(
            fileURL: url, options: Self.table, migrations: TodoV3.migrations())
        try await upgrade.close()
        let before = try Data(contentsOf: url)

        for migrations in [Migrations<Todo>(), try Todo.migrations()] {
            let error = try await #require(throws: RepositoryError.self) {
                _ = try await SQLiteRepository<Todo>(
                    fileURL: url, options: Self.table, migrations: migrations)
            }
            #expect(error.code == .writtenByNewerVersion)
            #expect(error.reason.contains("version 3"))
            #expect(error.reason.contains("versions up to \(migrations.currentVersion)"))
            #expect(error.location?.contains("todos-v1.sqlite") == true)
            #expect(error.recovery?.contains("Update the app") == true)
            #expect(try Data(contentsOf: url) == before, "the database file is not changed by a byte")
            // SQLite's read-only probe may leave an empty log beside a WAL file; nothing is in it.
            let log = url.path(percentEncoded: false) + "-wal"
            let logSize = try? FileManager.default.attributesOfItem(atPath: log)[.size] as? Int
            #expect((logSize ?? 0) == 0, "nothing was written to the log either")
        }
        // The newer app, once back, finds everything.
        let back = try await SQLiteRepository<TodoV3>(
            fileURL: url, options: Self.table, migrations: TodoV3.migrations())
        #expect(try await back.count() == 5)
        #expect(back.upgradedRowCount == 0)
        try await back.close()
    }

    // MARK: A row nothing can read

    @Test func aRowNoUpgradeReadsThrowsNamingItsIDAndVersionAndChangesNothing() async throws {
        let url = try await versionOneTable()
        let before = try Data(contentsOf: url)
        let refusing = try Migrations<Todo>(
            .upgrade(from: 1) { (old: TodoV1) in
                if old.id == 4 { throw Refused() }
                return Todo(upgrading: old)
            })
        let error = try await #require(throws: RepositoryError.self) {
            _ = try await SQLiteRepository<Todo>(fileURL: url, options: Self.table, migrations: refusing)
        }
        #expect(error.code == .decodingFailed)
        #expect(error.record?.contains("4") == true)
        #expect(error.record?.contains("version 1") == true)
        #expect(error.recovery?.contains("Migrations") == true)
        #expect(error.recovery?.contains("Nothing was changed") == true)
        #expect(error.underlying is Refused)
        // No row was upgraded, none dropped, and no stamp written: version 1 reads them all.
        #expect(try Data(contentsOf: url) == before)
        #expect(try !Self.tables(in: url).contains("repositories_entity_versions"))
        let old = try await SQLiteRepository<TodoV1>(fileURL: url, options: Self.table)
        #expect(try await old.fetchAll() == Self.fixtureTodos)
        try await old.close()
        // A fixed upgrade then reads them all.
        let fixed = try await SQLiteRepository<Todo>(
            fileURL: url, options: Self.table, migrations: Todo.migrations())
        #expect(fixed.upgradedRowCount == 5)
        try await fixed.close()
    }

    @Test(arguments: [EntityCodec.Identifier.binary, .json])
    func aLargeTableUpgradesInOrderAndItsFirstUnreadableRowIsNamed(codec: EntityCodec.Identifier) async throws
    {
        // Enough rows that opening upgrades them in chunks at once.
        let todos = (1...6_000).map { TodoV1.make($0) }
        let url = try await versionOneTable(todos, codec: codec)
        let refusing = try Migrations<Todo>(
            .upgrade(from: 1) { (old: TodoV1) in
                if old.id == 1_500 || old.id == 4_500 { throw Refused() }
                return Todo(upgrading: old)
            })
        let error = try await #require(throws: RepositoryError.self) {
            _ = try await SQLiteRepository<Todo>(fileURL: url, options: Self.table, migrations: refusing)
        }
        #expect(error.code == .decodingFailed)
        #expect(error.record?.hasPrefix("1500,") == true)
        let fixed = try await SQLiteRepository<Todo>(
            fileURL: url, options: Self.table, migrations: Todo.migrations())
        #expect(fixed.upgradedRowCount == todos.count)
        #expect(try await fixed.fetchAll() == todos.map(Todo.init(upgrading:)))
        try await fixed.close()
    }

    @Test func aChangedModelWithoutAnUpgradeFailsOnReadNamingTheRow() async throws {
        // Without migrations, the entity is version 1 and the rows are read as they are: a
        // changed model fails the read that meets the row, as before migrations existed.
        let url = try await versionOneTable()
        let store = try await SQLiteRepository<Todo>(fileURL: url, options: Self.table)
        let error = try await #require(throws: RepositoryError.self) { _ = try await store.fetchAll() }
        #expect(error.code == .decodingFailed)
        #expect(error.record == "1")
        try await store.close()
    }
}

/// A migration killed with SIGKILL at random moments of the open: the table is left with
/// every row as it was, unstamped, or every row upgraded and stamped, never a mix.
@Suite struct SQLiteRepositoryMigrationCrashTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    static let rowCount = 10_000

    static func stamp(of url: URL) -> [String] {
        guard let raw = try? RawDatabase(url) else { return [] }
        return
            (try? raw.strings("SELECT version FROM repositories_entity_versions WHERE table_name = 'Todo'"))
            ?? []
    }

    static func bodies(of url: URL) throws -> [String] {
        try RawDatabase(url).strings("SELECT body FROM Todo ORDER BY seq")
    }

    @Test(.enabled(if: ChildLauncher.isAvailable))
    func aKilledMigrationLeavesTheOldRowsOrTheNewNeverAMix() async throws {
        let kills = ChildProcess.killCount
        let pristine = directory.file("pristine.sqlite")
        let todos = (1...Self.rowCount).map { TodoV1.make($0) }
        // JSON, so each body shows the version that wrote it.
        let writer = try await SQLiteRepository<TodoV1>(
            fileURL: pristine, options: SQLiteRepositoryMigrationTests.table(.json))
        try await writer.save(contentsOf: todos)
        try await writer.close()
        let pristineBytes = try Data(contentsOf: pristine)
        let pristineBodies = try Self.bodies(of: pristine)
        let expected = todos.map(Todo.init(upgrading:))
        let database = directory.file("crash.sqlite")
        let acks = directory.file("acks.txt")

        // One migration left to finish, timed from its start to its end, sets the range of the kills.
        func restart(_ round: Int) throws -> ChildLauncher {
            try removeDatabaseFiles(at: database)
            try pristineBytes.write(to: database)
            try Data().write(to: acks)
            return try ChildLauncher.start(
                .migrate(database: database, acknowledgements: acks),
                log: directory.file("child-\(round).log"))
        }
        let timed = try restart(-1)
        try await timed.waitForAcknowledgement(in: acks)
        let start = ContinuousClock.now
        while try ChildRole.acknowledgedOperations(in: acks).count < 2 {
            guard timed.process.isRunning else {
                Issue.record("the child ended before opening; its output:\n\(timed.log)")
                return
            }
            try await Task.sleep(for: .milliseconds(1))
        }
        let openMilliseconds = max(1, Int((ContinuousClock.now - start) / .milliseconds(1)))
        try await timed.kill()
        #expect(Self.stamp(of: database) == ["2"])

        var random = SeededRandomNumberGenerator(seed: 14)
        var outcomes = (old: 0, new: 0)
        for round in 0..<kills {
            let child = try restart(round)
            try await child.waitForAcknowledgement(in: acks)
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...openMilliseconds, using: &random)))
            try await child.kill()

            let stamp = Self.stamp(of: database)
            let bodies = try Self.bodies(of: database)
            if stamp == ["2"] {
                outcomes.new += 1
                #expect(bodies.count == Self.rowCount)
                #expect(
                    bodies.allSatisfy { $0.contains("\"text\"") && !$0.contains("\"title\"") },
                    "round \(round)")
            } else {
                outcomes.old += 1
                #expect(stamp.isEmpty, "round \(round): stamp \(stamp)")
                #expect(
                    bodies == pristineBodies,
                    "round \(round): unstamped rows must be the old ones, all of them")
            }
            let store = try await SQLiteRepository<Todo>(
                fileURL: database, options: SQLiteRepositoryMigrationTests.table,
                migrations: Todo.migrations())
            #expect(store.upgradedRowCount == (stamp == ["2"] ? 0 : Self.rowCount))
            #expect(try await store.fetchAll() == expected, "round \(round): every todo once, upgraded")
            try await store.close()
            let again = try await SQLiteRepository<Todo>(
                fileURL: database, options: SQLiteRepositoryMigrationTests.table,
                migrations: Todo.migrations())
            #expect(again.upgradedRowCount == 0)
            try await again.close()
        }
        print(
            "migration kills over \(openMilliseconds) ms opens: \(outcomes.old) left the old rows, \(outcomes.new) the new"
        )
    }
}
