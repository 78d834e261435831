import Foundation
import Repositories
import RepositoriesTestSupport
import RepositoriesTesting
import Synchronization
import Testing

@testable import RepositoriesSQLite

/// The change feed of one table: what a page holds after every kind of write, its limit and
/// `hasMore`, the cursors it refuses, and the damage it reports.
@Suite struct SQLiteRepositoryChangeFeedTests {
    /// A directory of its own for each test, removed with it.
    let scratch: TemporaryDirectory

    init() throws {
        scratch = try TemporaryDirectory()
    }

    typealias Entity = ConformanceEntity

    static func entity(_ id: Int, _ revision: Int = 0) -> Entity { .make(index: id, revision: revision) }

    func store(_ url: URL? = nil, options: SQLiteOptions = SQLiteOptions()) async throws
        -> SQLiteRepository<Entity>
    {
        try await SQLiteRepository<Entity>(fileURL: url ?? scratch.file(), options: options)
    }

    // MARK: Pages

    @Test func aNilCursorPagesThroughEveryEntityInTheOrderOfItsLastWrite() async throws {
        let store = try await store()
        for id in 0..<10 { try await store.save(Self.entity(id)) }
        try await store.save(Self.entity(3, 1))

        let read = try await FeedRead.all(of: store, limit: 3)
        #expect(read.saved == [0, 1, 2, 4, 5, 6, 7, 8, 9, 3].map { Self.entity($0, $0 == 3 ? 1 : 0) })
        #expect(read.deleted.isEmpty)
        #expect(read.pages.map(\.saved.count) == [3, 3, 3, 1])
        #expect(read.pages.map(\.hasMore) == [true, true, true, false])
        try await store.close()
    }

    @Test func everyKindOfWriteAfterACursorComesInTheNextPagesEachIDOnceInItsLatestState() async throws {
        let store = try await store()
        try await store.save(contentsOf: (1...6).map { Self.entity($0) })
        let cursor = try await FeedRead.all(of: store).next

        try await store.save(Self.entity(2, 1))  // an update
        try await store.delete(id: 3)  // a delete
        try await store.save(Self.entity(7))  // an insert
        try await store.save(contentsOf: [Self.entity(8), Self.entity(4, 1)])  // a batch
        try await store.delete(ids: [1, 99])  // a batch delete, 99 absent
        try await store.delete(id: 100)  // absent: no change
        try await store.save(Self.entity(2, 2))  // 2 again: once, in its latest state
        try await store.delete(id: 8)  // saved, then deleted: only a tombstone
        try await store.save(Self.entity(3, 1))  // deleted, then saved again: only saved

        let read = try await FeedRead.all(of: store, from: cursor, limit: 2)
        #expect(read.saved == [Self.entity(7), Self.entity(4, 1), Self.entity(2, 2), Self.entity(3, 1)])
        #expect(read.deleted == [1, 8])
        for page in read.pages {
            let ids = page.saved.map(\.id) + page.deleted
            #expect(Set(ids).count == ids.count, "a page holds an ID twice: \(ids)")
        }
        // Nothing more after the last page, and its cursor still answers.
        #expect(try await FeedRead.all(of: store, from: read.next).isEmpty)
        try await store.close()
    }

    @Test func deleteAllLeavesATombstoneForEveryID() async throws {
        let store = try await store()
        try await store.save(contentsOf: (1...5).map { Self.entity($0) })
        let cursor = try await FeedRead.all(of: store).next
        try await store.deleteAll()

        let read = try await FeedRead.all(of: store, from: cursor)
        #expect(read.saved.isEmpty)
        #expect(Set(read.deleted) == Set(1...5) && read.deleted.count == 5)
        // From nil, the tombstones are all there is.
        #expect(Set(try await FeedRead.all(of: store).deleted) == Set(1...5))
        try await store.close()
    }

    @Test func aPageHoldsAtMostLimitIDsAndHasMoreSaysWhetherMoreFollow() async throws {
        let store = try await store()
        let empty = try await store.changes(since: nil, limit: 10)
        #expect(empty.saved.isEmpty && empty.deleted.isEmpty && !empty.hasMore)
        #expect(try await store.changes(since: empty.next, limit: 10).saved.isEmpty)

        try await store.save(contentsOf: (1...5).map { Self.entity($0) })
        let exact = try await store.changes(since: empty.next, limit: 5)
        #expect(exact.saved.count == 5 && !exact.hasMore, "a page that reaches the newest change has no more")
        let short = try await store.changes(since: empty.next, limit: 4)
        #expect(short.saved.map(\.id) == [1, 2, 3, 4] && short.hasMore)
        let rest = try await store.changes(since: short.next, limit: 4)
        #expect(rest.saved.map(\.id) == [5] && !rest.hasMore)
        let one = try await store.changes(since: nil, limit: 1)
        #expect(one.saved.map(\.id) == [1] && one.hasMore)
        // Reading a page twice is harmless: the same answer.
        #expect(try await store.changes(since: short.next, limit: 4) == rest)
        try await store.close()
    }

    @Test(arguments: [0, -1, Int.min])
    func aLimitNotAboveZeroIsRejected(_ limit: Int) async throws {
        let store = try SQLiteRepository<Entity>.inMemory()
        let error = try await #require(throws: RepositoryError.self) {
            _ = try await store.changes(since: nil, limit: limit)
        }
        #expect(error.code == .rejected)
    }

    @Test func anInMemoryRepositoryHasAFeedToo() async throws {
        let store = try SQLiteRepository<Entity>.inMemory()
        try await store.save(contentsOf: (1...3).map { Self.entity($0) })
        let cursor = try await FeedRead.all(of: store).next
        try await store.delete(id: 2)
        try await store.save(Self.entity(4))
        let read = try await FeedRead.all(of: store, from: cursor)
        #expect(read.saved == [Self.entity(4)] && read.deleted == [2])
    }

    /// Writers run while a reader pages: once they stop, paging on from the reader's cursor
    /// ends with every entity in its last state, and every deleted ID reported.
    @Test func pagingWhileOthersWriteNeverSkipsAWrite() async throws {
        let store = try await store()
        try await store.save(contentsOf: (0..<200).map { Self.entity($0) })
        let finished = Flag()
        let writer = Task {
            defer { finished.raise() }
            for step in 1...300 {
                let id = (step * 37) % 260
                if step % 4 == 0 {
                    try await store.delete(id: id)
                } else {
                    try await store.save(Self.entity(id, step))
                }
            }
        }
        var mirror: [Int: Entity] = [:]
        var cursor: SyncCursor?
        var pages = 0
        repeat {
            let page = try await store.changes(since: cursor, limit: 7)
            for entity in page.saved { mirror[entity.id] = entity }
            for id in page.deleted { mirror[id] = nil }
            cursor = page.next
            pages += 1
        } while !finished.isRaised
        try await writer.value
        #expect(pages > 1)
        let last = try await FeedRead.all(of: store, from: cursor)
        for entity in last.saved { mirror[entity.id] = entity }
        for id in last.deleted { mirror[id] = nil }
        let stored = try await store.fetchAll()
        #expect(mirror.values.sorted { $0.id < $1.id } == stored.sorted { $0.id < $1.id })
        try await store.close()
    }

    // MARK: Cursors

    @Test func aCursorNotMadeBySQLiteRepositoryIsExpired() async throws {
        let store = try await store()
        try await store.save(Self.entity(1))
        let inMemory = InMemoryRepository<Entity>()
        try await inMemory.save(Self.entity(1))
        let foreign = try await inMemory.changes(since: nil, limit: 10).next
        for cursor in [SyncCursor(""), SyncCursor("garbage"), SyncCursor("sqlite:x:-1"), foreign] {
            let error = try await #require(throws: RepositoryError.self) {
                _ = try await store.changes(since: cursor, limit: 10)
            }
            #expect(error.code == .cursorExpired, "\(cursor)")
        }
        try await store.close()
    }

    @Test func aCursorFromAnotherFileOrTableIsExpired() async throws {
        let url = scratch.file()
        let first = try await store(url)
        let other = try await store()
        let sharing = try await store(url, options: SQLiteOptions(tableName: "other"))
        for store in [first, other, sharing] { try await store.save(Self.entity(1)) }
        let cursor = try await FeedRead.all(of: first).next
        for store in [other, sharing] {
            let error = try await #require(throws: RepositoryError.self) {
                _ = try await store.changes(since: cursor, limit: 10)
            }
            #expect(error.code == .cursorExpired)
        }
        for store in [first, other, sharing] { try await store.close() }
    }

    @Test func aCursorFromATableMadeAgainIsExpired() async throws {
        let url = scratch.file()
        let store = try await store(url)
        try await store.save(Self.entity(1))
        let cursor = try await FeedRead.all(of: store).next
        try await store.close()
        try RawDatabase(url).execute(#"DROP TABLE "ConformanceEntity""#)

        let again = try await self.store(url)
        try await again.save(contentsOf: [Self.entity(1), Self.entity(2)])
        let error = try await #require(throws: RepositoryError.self) {
            _ = try await again.changes(since: cursor, limit: 10)
        }
        #expect(error.code == .cursorExpired)
        #expect(try await FeedRead.all(of: again).saved.map(\.id) == [1, 2])
        try await again.close()
    }

    @Test func aCursorPastTheNewestChangeOfACopyOfTheFileIsExpired() async throws {
        let url = scratch.file()
        let store = try await store(url)
        try await store.save(Self.entity(1))
        try await store.close()
        let copy = scratch.file()
        try FileManager.default.copyItem(at: url, to: copy)

        let original = try await self.store(url)
        try await original.save(Self.entity(2))
        let cursor = try await FeedRead.all(of: original).next
        try await original.close()
        let restored = try await self.store(copy)
        let error = try await #require(throws: RepositoryError.self) {
            _ = try await restored.changes(since: cursor, limit: 10)
        }
        #expect(error.code == .cursorExpired)
        try await restored.close()
    }

    @Test func aCursorStaysValidAcrossReopening() async throws {
        let url = scratch.file()
        let store = try await store(url)
        try await store.save(contentsOf: (1...3).map { Self.entity($0) })
        let cursor = try await FeedRead.all(of: store).next
        try await store.close()

        let reopened = try await self.store(url)
        #expect(try await FeedRead.all(of: reopened, from: cursor).isEmpty)
        try await reopened.save(Self.entity(4))
        try await reopened.delete(id: 1)
        let read = try await FeedRead.all(of: reopened, from: cursor)
        #expect(read.saved == [Self.entity(4)] && read.deleted == [1])
        try await reopened.close()
    }

    // MARK: IDs of every kind

    @Test func tombstonesHandBackIDsOfEveryKind() async throws {
        try await checkTombstones(of: Note.make(index: 1, revision: 0), Note.make(index: 2, revision: 0))
        try await checkTombstones(of: Ticket.make(index: 1, revision: 0), Ticket.make(index: 2, revision: 0))
        try await checkTombstones(
            of: Keyed(id: Keyed.Key(shelf: "caf\u{E9}", slot: 1), text: "a"),
            Keyed(id: Keyed.Key(shelf: "b", slot: 2), text: "b"))
        try await checkTombstones(of: Wide(id: .max, text: "a"), Wide(id: 7, text: "b"))
        try await checkTombstones(of: Small(id: -3, text: "a"), Small(id: 9, text: "b"))
    }

    /// Saves both, deletes the first, and expects the feed to report its ID as deleted.
    private func checkTombstones<Item: Codable & Identifiable & Sendable & Equatable>(
        of first: Item, _ second: Item, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws where Item.ID: Codable & Sendable {
        let store = try await SQLiteRepository<Item>(fileURL: scratch.file())
        try await store.save(contentsOf: [first, second])
        try await store.delete(id: first.id)
        let page = try await store.changes(since: nil, limit: 10)
        #expect(page.saved == [second], sourceLocation: sourceLocation)
        #expect(page.deleted == [first.id], sourceLocation: sourceLocation)
        try await store.close()
    }

    struct Wide: Codable, Identifiable, Sendable, Equatable {
        var id: UInt64
        var text: String
    }

    struct Small: Codable, Identifiable, Sendable, Equatable {
        var id: Int8
        var text: String
    }

    /// A key an earlier release stored in another spelling is rewritten on open: the feed
    /// then holds the ID once, saved, whether read from the beginning or from a cursor from
    /// before the rewrite.
    @Test func aKeyRewrittenToItsCanonicalSpellingEndsSaved() async throws {
        let url = scratch.file()
        let decomposed = "cafe\u{301}"
        let store = try await SQLiteRepository<Note>(fileURL: url, options: SQLiteOptions(codec: .json))
        try await store.save(Self.note("a", "first"))
        let cursor = try await store.changes(since: nil, limit: 10).next
        try await store.close()
        // As an earlier release wrote it: the key as spelled, through the triggers.
        let note = Self.note(decomposed, "accented")
        let body = try JSONEncoder().encode(note)
        let crc = SQLiteRow.checksum(seq: 2, key: .text(decomposed), body: body)
        try RawDatabase(url).execute(
            #"INSERT INTO "Note" (seq, id, body, crc) VALUES (2, 'cafe"# + "\u{301}', '"
                + String(decoding: body, as: UTF8.self) + "', \(crc))")

        let reopened = try await SQLiteRepository<Note>(fileURL: url, options: SQLiteOptions(codec: .json))
        for from in [nil, cursor] {
            let page = try await reopened.changes(since: from, limit: 10)
            #expect(page.saved.map(\.text) == (from == nil ? ["first", "accented"] : ["accented"]))
            #expect(page.deleted.isEmpty, "\(page.deleted.map { Array($0.unicodeScalars) })")
        }
        try await reopened.close()
    }

    // MARK: Writes made elsewhere

    /// Writes the repository did not make (an earlier release, the `sqlite3` shell) go through
    /// the triggers and into the feed.
    @Test func writesMadeOutsideTheRepositoryAreInTheFeed() async throws {
        let url = scratch.file()
        let store = try await store(url)
        try await store.save(contentsOf: (1...3).map { Self.entity($0) })
        let cursor = try await FeedRead.all(of: store).next
        let raw = try RawDatabase(url)
        try raw.execute(#"DELETE FROM "ConformanceEntity" WHERE id = 2"#)
        try raw.execute(#"UPDATE "ConformanceEntity" SET body = body WHERE id = 3"#)
        let read = try await FeedRead.all(of: store, from: cursor)
        #expect(read.deleted == [2] && read.saved == [Self.entity(3)])
        try await store.close()
    }

    // MARK: Damage

    @Test func aDamagedLogEntryThrowsCorrupted() async throws {
        let damages: [(String, String)] = [
            (
                "its deleted_at is neither NULL nor an integer",
                "UPDATE %LOG SET deleted_at = 'x' WHERE key = 2"
            ),
            ("neither an integer nor text", "UPDATE %LOG SET key = x'00' WHERE key = 2"),
            (
                "holds no row of it",
                "DELETE FROM %TABLE WHERE id = 2; UPDATE %LOG SET deleted_at = NULL WHERE key = 2"
            ),
            ("but the table holds the row", "UPDATE %LOG SET deleted_at = 1 WHERE key = 2"),
            ("checksum does not match", "UPDATE %TABLE SET crc = crc + 1 WHERE id = 2"),
        ]
        for (expected, sql) in damages {
            let url = scratch.file()
            let store = try await store(url)
            try await store.save(contentsOf: (1...3).map { Self.entity($0) })
            try RawDatabase(url).execute(
                sql.replacingOccurrences(of: "%LOG", with: #""repositories_changes_ConformanceEntity""#)
                    .replacingOccurrences(of: "%TABLE", with: #""ConformanceEntity""#))
            let error = try await #require(throws: RepositoryError.self, "\(sql)") {
                _ = try await FeedRead.all(of: store)
            }
            #expect(error.code == .corrupted, "\(sql)")
            #expect(error.reason.contains(expected), "\(sql): \(error.reason)")
            try await store.close()
        }
    }

    @Test func aDecodingFailureNamesTheRow() async throws {
        let url = scratch.file()
        let store = try await SQLiteRepository<Note>(fileURL: url, options: SQLiteOptions(codec: .json))
        try await store.save(Self.note("a", "fine"))
        try await store.close()
        let other = try await SQLiteRepository<NoteWithNumber>(
            fileURL: url, options: SQLiteOptions(tableName: "Note", codec: .json))
        let error = try await #require(throws: RepositoryError.self) {
            _ = try await other.changes(since: nil, limit: 10)
        }
        #expect(error.code == .decodingFailed && error.record == "a")
        try await other.close()
    }

    static func note(_ id: String, _ text: String) -> Note {
        var note = Note.make(index: 0, revision: 0)
        note.id = id
        note.text = text
        return note
    }

    struct NoteWithNumber: Codable, Identifiable, Sendable {
        var id: String
        var number: Int
    }

    // MARK: Names

    @Test(arguments: ["repositories_change_feeds", "REPOSITORIES_CHANGES_Note", "repositories_changes_"])
    func theFeedsTableNamesAreReserved(_ name: String) async throws {
        let error = try #require(throws: RepositoryError.self) {
            _ = try SQLiteRepository<Entity>.inMemory(options: SQLiteOptions(tableName: name))
        }
        #expect(error.code == .rejected)
    }

    @Test func aTableOfTheLogsNameThatIsNotALogIsRefusedAndLeftAlone() async throws {
        let url = scratch.file()
        try RawDatabase(url).execute(
            #"CREATE TABLE "repositories_changes_ConformanceEntity" (a, b); INSERT INTO "repositories_changes_ConformanceEntity" VALUES (1, 2)"#
        )
        let error = try await #require(throws: RepositoryError.self) { _ = try await store(url) }
        #expect(error.code == .rejected)
        #expect(
            try RawDatabase(url).strings(#"SELECT b FROM "repositories_changes_ConformanceEntity""#) == ["2"])
    }
}

/// A flag one task raises and another reads.
final class Flag: Sendable {
    private let raised = Mutex(false)

    func raise() { raised.withLock { $0 = true } }
    var isRaised: Bool { raised.withLock { $0 } }
}
