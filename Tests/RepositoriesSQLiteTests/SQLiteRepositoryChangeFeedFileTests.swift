import Foundation
import Repositories
import RepositoriesSQLite
import RepositoriesTestSupport
import RepositoriesTesting
import Testing

/// The change feed as the file keeps it: tombstones pruned by the retention and the cursors
/// that expire with them, tables an earlier release wrote, several tables in one file, and
/// rows an upgrade rewrote.
@Suite struct SQLiteRepositoryChangeFeedFileTests {
    /// A directory of its own for each test, removed with it.
    let scratch: TemporaryDirectory

    init() throws {
        scratch = try TemporaryDirectory()
    }

    typealias Entity = ConformanceEntity

    static func entity(_ id: Int, _ revision: Int = 0) -> Entity { .make(index: id, revision: revision) }

    static let logTables = ["repositories_changes_ConformanceEntity", "repositories_change_feeds"]

    func expectExpired(
        _ cursor: SyncCursor?, in store: SQLiteRepository<Entity>,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        let error = await #expect(throws: RepositoryError.self, sourceLocation: sourceLocation) {
            _ = try await store.changes(since: cursor, limit: 10)
        }
        #expect(error?.code == .cursorExpired, sourceLocation: sourceLocation)
    }

    // MARK: Retention

    @Test func forgettingTombstonesExpiresTheCursorsFromBeforeThemAndNoOthers() async throws {
        let url = scratch.file()
        let options = SQLiteOptions(tombstoneRetention: .newest(1))
        let store = try await SQLiteRepository<Entity>(fileURL: url, options: options)
        try await store.save(contentsOf: (1...6).map { Self.entity($0) })
        let beforeDeletions = try await FeedRead.all(of: store).next
        try await store.delete(id: 1)
        let betweenDeletions = try await FeedRead.all(of: store).next
        try await store.delete(id: 2)
        let atTheLastForgotten = try await FeedRead.all(of: store).next
        try await store.delete(id: 3)
        try await store.save(Self.entity(4, 1))
        let afterDeletions = try await FeedRead.all(of: store).next
        // Nothing forgotten yet: every cursor answers.
        #expect(try await FeedRead.all(of: store, from: beforeDeletions).deleted == [1, 2, 3])

        #expect(try await store.pruneTombstones() == 2, "1 and 2 go; 3, the newest, stays")
        await expectExpired(beforeDeletions, in: store)
        await expectExpired(betweenDeletions, in: store)
        // A reader that had seen both deletions lost nothing.
        let sinceBoth = try await FeedRead.all(of: store, from: atTheLastForgotten)
        #expect(sinceBoth.deleted == [3] && sinceBoth.saved == [Self.entity(4, 1)])
        #expect(try await FeedRead.all(of: store, from: afterDeletions).isEmpty)
        let fromNil = try await FeedRead.all(of: store)
        #expect(fromNil.saved.map(\.id) == [5, 6, 4] && fromNil.deleted == [3])
        try await store.close()

        // The bound is in the file: reopened, with any retention, the old cursors stay expired.
        let reopened = try await SQLiteRepository<Entity>(fileURL: url)
        await expectExpired(beforeDeletions, in: reopened)
        #expect(try await FeedRead.all(of: reopened, from: afterDeletions).isEmpty)
        #expect(try await reopened.pruneTombstones() == 0, "forever forgets nothing")
        try await reopened.close()
    }

    @Test func theNewestChangeIsKeptSoNumbersNeverGoBack() async throws {
        let options = SQLiteOptions(tombstoneRetention: .newest(0))
        let store = try await SQLiteRepository<Entity>(fileURL: scratch.file(), options: options)
        try await store.save(contentsOf: (1...3).map { Self.entity($0) })
        try await store.delete(ids: [1, 2, 3])
        #expect(try await store.pruneTombstones() == 2)
        let cursor = try await FeedRead.all(of: store).next
        try await store.save(Self.entity(9))
        // A number reused after the prune would hide this save behind the cursor.
        #expect(try await FeedRead.all(of: store, from: cursor).saved == [Self.entity(9)])
        try await store.close()
    }

    @Test func aRetentionByAgeForgetsDeletionsOlderThanIt() async throws {
        let url = scratch.file()
        let keepAll = SQLiteOptions(tombstoneRetention: .age(.seconds(3_600)))
        let store = try await SQLiteRepository<Entity>(fileURL: url, options: keepAll)
        try await store.save(contentsOf: (1...4).map { Self.entity($0) })
        let cursor = try await FeedRead.all(of: store).next
        try await store.delete(ids: [1, 2])
        try await store.save(Self.entity(5))
        #expect(try await store.pruneTombstones() == 0, "deletions made just now are kept for an hour")
        #expect(try await FeedRead.all(of: store, from: cursor).deleted == [1, 2])
        try await store.close()

        let forgetAll = SQLiteOptions(tombstoneRetention: .age(.zero))
        let reopened = try await SQLiteRepository<Entity>(fileURL: url, options: forgetAll)
        // Opening applied the retention already.
        #expect(try await reopened.pruneTombstones() == 0)
        await expectExpired(cursor, in: reopened)
        #expect(try await FeedRead.all(of: reopened).deleted.isEmpty)
        try await reopened.close()
    }

    @Test func theWriterPrunesOnItsOwnAfterEnoughDeletions() async throws {
        let options = SQLiteOptions(tombstoneRetention: .newest(10))
        let store = try await SQLiteRepository<Entity>(fileURL: scratch.file(), options: options)
        try await store.save(contentsOf: (0..<1_100).map { Self.entity($0) })
        let cursor = try await FeedRead.all(of: store).next
        try await store.delete(ids: Array(0..<1_100))
        try await store.save(Self.entity(5_000))
        await expectExpired(cursor, in: store)
        #expect(try await FeedRead.all(of: store).deleted.count == 10)
        try await store.close()
    }

    // MARK: Tables an earlier release wrote

    @Test func aTableAnEarlierReleaseWroteGetsItsLogOnOpenEveryRowNumbered() async throws {
        let url = scratch.file()
        let store = try await SQLiteRepository<Entity>(fileURL: url)
        try await store.save(contentsOf: (1...5).map { Self.entity($0) })
        try await store.save(Self.entity(2, 1))
        try await store.delete(id: 4)
        try await store.close()
        try Self.removeChangeLog(of: "ConformanceEntity", in: url)
        try RawDatabase(url).execute("DROP TABLE repositories_change_feeds")
        #expect(
            try Self.tables(in: url) == [
                "ConformanceEntity", "repositories_entity_codecs", "repositories_entity_fields",
            ])

        let reopened = try await SQLiteRepository<Entity>(fileURL: url)
        #expect(try Self.tables(in: url).isSuperset(of: Self.logTables))
        // Numbered in seq order, the order fetchAll reads.
        let read = try await FeedRead.all(of: reopened, limit: 2)
        #expect(read.saved == (try await reopened.fetchAll()))
        #expect(read.saved.map(\.id) == [1, 2, 3, 5] && read.deleted.isEmpty)
        try await reopened.save(Self.entity(6))
        #expect(try await FeedRead.all(of: reopened, from: read.next).saved == [Self.entity(6)])
        try await reopened.close()
    }

    /// A trigger gone (dropped by hand, or by a tool that rebuilt the table) means writes the
    /// log may have missed: the next open makes the log again, and every cursor expires.
    @Test func aLogMissingATriggerIsMadeAgainAndItsCursorsExpire() async throws {
        let url = scratch.file()
        let store = try await SQLiteRepository<Entity>(fileURL: url)
        try await store.save(contentsOf: (1...3).map { Self.entity($0) })
        let cursor = try await FeedRead.all(of: store).next
        try await store.close()
        let raw = try RawDatabase(url)
        try raw.execute(#"DROP TRIGGER "repositories_log_delete_ConformanceEntity""#)
        try raw.execute(#"DELETE FROM "ConformanceEntity" WHERE id = 2"#)  // not logged

        let reopened = try await SQLiteRepository<Entity>(fileURL: url)
        await expectExpired(cursor, in: reopened)
        let read = try await FeedRead.all(of: reopened)
        #expect(read.saved.map(\.id) == [1, 3] && read.deleted.isEmpty)
        try await reopened.delete(id: 3)
        #expect(try await FeedRead.all(of: reopened, from: read.next).deleted == [3], "the trigger is back")
        try await reopened.close()
    }

    /// The checked-in file an earlier release wrote (see Fixtures/Migrations/README.md).
    @Test func theEarlierReleasesFixtureGetsItsLog() async throws {
        let url = try Self.copyOfFixture("todos-v1.sqlite", in: scratch)
        let store = try await SQLiteRepository<TodoV1>(
            fileURL: url, options: SQLiteRepositoryMigrationTests.table)
        let page = try await store.changes(since: nil, limit: 100)
        #expect(page.saved == SQLiteRepositoryMigrationTests.fixtureTodos)
        #expect(page.deleted.isEmpty, "the deletion happened before the log: nothing to tell")
        try await store.close()
    }

    /// What an earlier release sees of a file with logs: its own table as it wrote it, the
    /// same columns and `id` index, and the triggers, which its writes go through. (An
    /// entity that declares fields has columns of its own, which earlier releases refuse.)
    @Test func theLogLeavesTheTableAsEarlierReleasesCheckIt() async throws {
        let url = scratch.file()
        let store = try await SQLiteRepository<Note>(fileURL: url)
        try await store.save(Note.make(index: 1, revision: 0))
        try await store.close()
        let raw = try RawDatabase(url)
        #expect(
            try raw.strings(#"SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'Note'"#)
                == [
                    #"CREATE TABLE "Note" (seq INTEGER PRIMARY KEY, id NOT NULL UNIQUE, body BLOB NOT NULL, crc INTEGER NOT NULL)"#
                ])
        #expect(try raw.strings(#"SELECT name FROM pragma_index_list('Note')"#).count == 1)
        #expect(
            Set(try raw.strings("SELECT name FROM sqlite_master WHERE type = 'trigger'")) == [
                "repositories_log_insert_Note", "repositories_log_update_Note",
                "repositories_log_rekey_Note", "repositories_log_delete_Note",
            ])
    }

    // MARK: Several tables in one file

    @Test func repositoriesSharingAFileKeepAFeedEach() async throws {
        let url = scratch.file()
        let first = try await SQLiteRepository<Entity>(
            fileURL: url, options: SQLiteOptions(tableName: "first"))
        let second = try await SQLiteRepository<Entity>(
            fileURL: url, options: SQLiteOptions(tableName: "second"))
        try await first.save(contentsOf: [Self.entity(1), Self.entity(2)])
        try await second.save(Self.entity(10))
        let firstCursor = try await FeedRead.all(of: first).next
        let secondCursor = try await FeedRead.all(of: second).next
        try await second.delete(id: 10)
        try await second.save(Self.entity(11))
        try await first.delete(id: 1)

        let firstRead = try await FeedRead.all(of: first, from: firstCursor)
        #expect(firstRead.saved.isEmpty && firstRead.deleted == [1])
        let secondRead = try await FeedRead.all(of: second, from: secondCursor)
        #expect(secondRead.saved == [Self.entity(11)] && secondRead.deleted == [10])
        #expect(
            try Self.tables(in: url).isSuperset(of: [
                "repositories_changes_first", "repositories_changes_second",
            ]))
        try await first.close()
        try await second.close()

        // A table dropped and made again gets a new log; its neighbour keeps its own.
        try RawDatabase(url).execute(#"DROP TABLE "second""#)
        let firstAgain = try await SQLiteRepository<Entity>(
            fileURL: url, options: SQLiteOptions(tableName: "first"))
        let secondAgain = try await SQLiteRepository<Entity>(
            fileURL: url, options: SQLiteOptions(tableName: "second"))
        #expect(try await FeedRead.all(of: firstAgain, from: firstRead.next).isEmpty)
        await expectExpired(secondRead.next, in: secondAgain)
        #expect(try await FeedRead.all(of: secondAgain).isEmpty)
        try await firstAgain.close()
        try await secondAgain.close()
    }

    @Test func aTableNamedInAnotherCaseIsTheSameTableWithTheSameFeed() async throws {
        let url = scratch.file()
        // JSON: the codec's record is looked up in the case it was written in.
        let upper = try await SQLiteRepository<Entity>(
            fileURL: url, options: SQLiteOptions(tableName: "Items", codec: .json))
        try await upper.save(Self.entity(1))
        let cursor = try await FeedRead.all(of: upper).next
        try await upper.close()
        let lower = try await SQLiteRepository<Entity>(
            fileURL: url, options: SQLiteOptions(tableName: "items", codec: .json))
        try await lower.save(Self.entity(2))
        #expect(try await FeedRead.all(of: lower, from: cursor).saved == [Self.entity(2)])
        try await lower.close()
    }

    // MARK: Upgrades

    @Test func rowsAnUpgradeRewroteComeAgainWithNewNumbers() async throws {
        let url = scratch.file()
        let old = try await SQLiteRepository<TodoV1>(
            fileURL: url, options: SQLiteRepositoryMigrationTests.table)
        try await old.save(contentsOf: SQLiteRepositoryMigrationTests.fixtureTodos)
        let cursor = try await old.changes(since: nil, limit: 100).next
        try await old.close()

        let upgraded = try await SQLiteRepository<Todo>(
            fileURL: url, options: SQLiteRepositoryMigrationTests.table, migrations: Todo.migrations())
        #expect(upgraded.upgradedRowCount == 5)
        let page = try await upgraded.changes(since: cursor, limit: 100)
        #expect(page.saved == SQLiteRepositoryMigrationTests.fixtureTodos.map(Todo.init(upgrading:)))
        try await upgraded.close()
    }

    // MARK: Helpers

    /// Removes the log, its record and its triggers, as a file an earlier release wrote has none.
    static func removeChangeLog(of table: String, in url: URL) throws {
        try RawDatabase(url).execute(
            """
            DROP TRIGGER "repositories_log_insert_\(table)";
            DROP TRIGGER "repositories_log_update_\(table)";
            DROP TRIGGER "repositories_log_rekey_\(table)";
            DROP TRIGGER "repositories_log_delete_\(table)";
            DROP TABLE "repositories_changes_\(table)";
            DELETE FROM repositories_change_feeds WHERE table_name = '\(table)';
            """)
    }

    struct FixtureMissing: Error {}

    /// A copy of a checked-in fixture database, so the original is never opened for writing.
    static func copyOfFixture(_ name: String, in directory: TemporaryDirectory) throws -> URL {
        guard
            let fixture = Bundle.module.url(forResource: "Fixtures", withExtension: nil)?
                .appending(path: "Migrations/\(name)")
        else { throw FixtureMissing() }
        let copy = directory.file(name)
        try FileManager.default.copyItem(at: fixture, to: copy)
        return copy
    }

    static func tables(in url: URL) throws -> Set<String> {
        Set(try RawDatabase(url).strings("SELECT name FROM sqlite_master WHERE type = 'table'"))
    }
}
