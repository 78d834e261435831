import Foundation
import Repositories
import RepositoriesSQLite
import RepositoriesTestSupport
import RepositoriesTesting
import Testing

/// What the repository leaves in the file: its table, its columns, its keys, its order.
@Suite struct SQLiteRepositorySchemaTests {
    /// A directory of its own for each test, removed with it.
    let scratch: TemporaryDirectory

    init() throws {
        scratch = try TemporaryDirectory()
    }

    @Test func defaultTableIsTheEntityTypeNameSanitized() async throws {
        let url = scratch.file()
        let notes = try await SQLiteRepository<Note>(fileURL: url)
        let boxes = try await SQLiteRepository<Box<Int>>(fileURL: url)
        #expect(notes.tableName == "Note")
        #expect(boxes.tableName == "Box_Int_")
        try await notes.save(.make(index: 1, revision: 0))
        try await boxes.save(Box(id: 1, value: 1))
        let tables = try RawDatabase(url).strings("SELECT name FROM sqlite_master WHERE type = 'table'")
        #expect(
            Set(tables) == [
                "Note", "Box_Int_", "repositories_entity_codecs", "repositories_changes_Note",
                "repositories_changes_Box_Int_", "repositories_change_feeds",
            ])
        try await notes.close()
        try await boxes.close()
    }

    @Test func anyTableNameIsQuotedNeverSplicedIntoSQL() async throws {
        let url = scratch.file()
        let name = #"notes"; DROP TABLE "Note"; --"#
        let guarded = try await SQLiteRepository<Note>(fileURL: url)
        try await guarded.save(.make(index: 1, revision: 0))
        let odd = try await SQLiteRepository<Note>(fileURL: url, options: SQLiteOptions(tableName: name))
        try await odd.save(.make(index: 2, revision: 0))
        #expect(try await odd.fetchAll() == [.make(index: 2, revision: 0)])
        #expect(try await guarded.fetchAll() == [.make(index: 1, revision: 0)])
        let tables = try RawDatabase(url).strings("SELECT name FROM sqlite_master WHERE type = 'table'")
        #expect(
            Set(tables) == [
                "Note", name, "repositories_entity_codecs", "repositories_changes_Note",
                "repositories_changes_" + name, "repositories_change_feeds",
            ])
        try await odd.close()
        try await guarded.close()
    }

    @Test(arguments: ["", "sqlite_notes", "SQLITE_x", "a\u{0}b", "repositories_entity_versions"])
    func reservedOrEmptyTableNamesAreRejected(_ name: String) async throws {
        let error = try #require(throws: RepositoryError.self) {
            _ = try SQLiteRepository<Note>.inMemory(options: SQLiteOptions(tableName: name))
        }
        #expect(error.code == .rejected)
    }

    @Test func tableOfTheSameNameWithOtherColumnsIsRejectedAndLeftAlone() async throws {
        let url = scratch.file()
        let raw = try RawDatabase(url)
        try raw.execute("CREATE TABLE Note (name TEXT, age INTEGER); INSERT INTO Note VALUES ('Ada', 36)")
        let error = try await #require(throws: RepositoryError.self) {
            _ = try await SQLiteRepository<Note>(fileURL: url)
        }
        #expect(error.code == .rejected)
        #expect(error.reason.contains("Note"))
        #expect(try raw.strings("SELECT name || age FROM Note") == ["Ada36"])
    }

    @Test func tableOfAnEarlierVersionWithoutChecksumsIsRejectedAndLeftAlone() async throws {
        let url = scratch.file()
        let raw = try RawDatabase(url)
        try raw.execute(
            """
            PRAGMA journal_mode=WAL;
            CREATE TABLE "Note" (seq INTEGER PRIMARY KEY, id NOT NULL UNIQUE, body TEXT NOT NULL);
            INSERT INTO "Note" (id, body) VALUES ('a', '{"id":"a","text":"kept","rating":0}')
            """)
        let error = try await #require(throws: RepositoryError.self) {
            _ = try await SQLiteRepository<Note>(fileURL: url)
        }
        #expect(error.code == .rejected)
        #expect(error.reason.contains("earlier version"))
        #expect(error.reason.contains("crc"))
        #expect(try raw.strings(#"SELECT json_extract(body, '$.text') FROM "Note""#) == ["kept"])
        #expect(try raw.strings(#"SELECT name FROM pragma_table_info('Note')"#) == ["seq", "id", "body"])
    }

    @Test func everyRowCarriesTheChecksumOfItsSeqIDAndBody() async throws {
        let url = scratch.file()
        let store = try await SQLiteRepository<Note>(fileURL: url)
        try await store.save(.make(index: 1, revision: 0))
        try await store.save(.make(index: 2, revision: 0))
        let raw = try RawDatabase(url)
        let before = try raw.strings(#"SELECT crc FROM "Note" ORDER BY seq"#)
        // An upsert keeps the seq and recomputes the checksum over the new body.
        try await store.save(.make(index: 1, revision: 1))
        let after = try raw.strings(#"SELECT crc FROM "Note" ORDER BY seq"#)
        #expect(after[0] != before[0])
        #expect(after[1] == before[1])
        #expect(
            try await store.fetchAll() == [.make(index: 1, revision: 1), .make(index: 2, revision: 0)])
        // A row another tool rewrote without its checksum is damage, never served.
        try raw.execute(
            #"UPDATE "Note" SET body = replace(body, 'revision 0', 'revision 9') WHERE seq = 2"#)
        let error = try await #require(throws: RepositoryError.self) {
            _ = try await store.fetch(id: Note.make(index: 2, revision: 0).id)
        }
        #expect(error.code == .corrupted)
        #expect(error.record == Note.make(index: 2, revision: 0).id)
        try await store.close()
    }

    @Test func idColumnHoldsIntegersForIntegerIDsAndTextOtherwise() async throws {
        let url = scratch.file()
        let entities = try await SQLiteRepository<ConformanceEntity>(fileURL: url)
        let notes = try await SQLiteRepository<Note>(fileURL: url)
        // JSON, so SQL can read a field of the body.
        let tickets = try await SQLiteRepository<Ticket>(fileURL: url, options: SQLiteOptions(codec: .json))
        let keyed = try await SQLiteRepository<Keyed>(fileURL: url)
        try await entities.save(.make(index: 42, revision: 0))
        try await notes.save(.make(index: 1, revision: 0))
        try await tickets.save(.make(index: 255, revision: 0))
        try await keyed.save(Keyed(id: Keyed.Key(shelf: "b/2", slot: 7), text: "x"))
        let raw = try RawDatabase(url)
        #expect(
            try raw.strings(#"SELECT typeof(id) || ':' || id FROM "ConformanceEntity""#) == ["integer:42"]
        )
        #expect(
            try raw.strings(#"SELECT typeof(id) || ':' || id FROM "Note""#) == ["text:note-1-ü"])
        #expect(
            try raw.strings(#"SELECT typeof(id) || ':' || id FROM "Ticket""#)
                == ["text:00000000-0000-4000-8000-0000000000FF"])
        #expect(try raw.strings(#"SELECT id FROM "Keyed""#) == [#"{"shelf":"b/2","slot":7}"#])
        #expect(try raw.strings(#"SELECT json_extract(body, '$.seat') FROM "Ticket""#) == ["0"])
        for store in [entities, notes, tickets] as [any ClosableStore] { try await store.close() }
        try await keyed.close()
    }

    @Test func everyKindOfIDRoundTrips() async throws {
        let integers = try SQLiteRepository<Box<Int>>.inMemory()
        let extremes = [Int.min, -1, 0, Int.max]
        try await integers.save(contentsOf: extremes.map { Box(id: $0, value: $0) })
        #expect(try await integers.fetchAll().map(\.id) == extremes)
        #expect(try await integers.fetch(ids: extremes.reversed()).map(\.id) == extremes.reversed())

        let unsigned = try SQLiteRepository<Box<UInt64>>.inMemory()
        let large: [UInt64] = [0, UInt64(Int64.max), UInt64(Int64.max) + 1, .max]
        try await unsigned.save(contentsOf: large.map { Box(id: $0, value: 0) })
        #expect(try await unsigned.fetch(ids: large).map(\.id) == large)
        try await unsigned.delete(id: .max)
        #expect(try await unsigned.fetchAll().map(\.id) == large.dropLast())

        let structured = try SQLiteRepository<Keyed>.inMemory()
        let keys = (0..<5).map { Keyed.Key(shelf: "shelf \($0)", slot: $0) }
        try await structured.save(contentsOf: keys.map { Keyed(id: $0, text: "") })
        #expect(try await structured.fetch(ids: keys.reversed()).map(\.id) == keys.reversed())
        #expect(try await structured.fetch(id: keys[2])?.id == keys[2])

        // "42" and 42 are different IDs in a String-keyed store.
        let strings = try SQLiteRepository<Box<String>>.inMemory()
        try await strings.save(contentsOf: [Box(id: "42", value: "a"), Box(id: "042", value: "b")])
        #expect(try await strings.fetch(id: "42")?.value == "a")
        #expect(try await strings.count() == 2)
    }

    @Test func upsertKeepsTheRowsSeqAndReinsertingTakesANewOne() async throws {
        let url = scratch.file()
        let store = try await SQLiteRepository<Note>(fileURL: url)
        try await store.save(contentsOf: (1...3).map { .make(index: $0, revision: 0) })
        let raw = try RawDatabase(url)
        let seqOfTwo = #"SELECT seq FROM "Note" WHERE json_extract(body, '$.text') LIKE '%note 2'"#
        let before = try raw.strings(seqOfTwo)
        try await store.save(.make(index: 2, revision: 1))
        #expect(try raw.strings(seqOfTwo) == before)
        try await store.delete(id: Note.make(index: 3, revision: 0).id)
        try await store.delete(id: Note.make(index: 2, revision: 0).id)
        try await store.save(.make(index: 2, revision: 2))
        try await store.save(.make(index: 3, revision: 0))
        #expect(
            try await store.fetchAll().map(\.text) == [
                "revision 0 of note 1", "revision 2 of note 2", "revision 0 of note 3",
            ])
        #expect(try raw.strings(#"SELECT seq FROM "Note" ORDER BY seq"#) == ["1", "2", "3"])
        try await store.close()
    }

    /// A save is one statement that computes the next `seq` in SQL; past the last `seq` it
    /// cannot, and the save takes the path that reads the `seq` first.
    @Test func atTheLastSeqAnUpsertStillUpdatesAndANewEntityIsRefused() async throws {
        let url = scratch.file()
        let store = try await SQLiteRepository<Note>(fileURL: url)
        try await store.save(.make(index: 1, revision: 0))
        try RawDatabase(url).execute(#"UPDATE "Note" SET seq = 9223372036854775807"#)
        // The update rewrites the checksum over the row's seq, so the row reads back whole.
        try await store.save(.make(index: 1, revision: 1))
        #expect(
            try await store.fetch(id: Note.make(index: 1, revision: 0).id) == .make(index: 1, revision: 1)
        )
        let error = try await #require(throws: RepositoryError.self) {
            try await store.save(.make(index: 2, revision: 0))
        }
        #expect(error.code == .rejected)
        let batchError = try await #require(throws: RepositoryError.self) {
            try await store.save(contentsOf: [.make(index: 1, revision: 2), .make(index: 3, revision: 0)])
        }
        #expect(batchError.code == .rejected)
        #expect(try await store.fetchAll() == [.make(index: 1, revision: 1)])
        try await store.close()
    }
}

// MARK: - Fixtures

/// A generic entity, whose type name is not an SQL identifier as it is.
struct Box<Value: Codable & Hashable & Sendable>: Identifiable, Codable, Sendable, Equatable {
    var id: Value
    var value: Value
}

/// An entity with a structured ID, stored as its JSON.
struct Keyed: Identifiable, Codable, Sendable, Equatable {
    struct Key: Codable, Hashable, Sendable {
        var shelf: String
        var slot: Int
    }
    var id: Key
    var text: String
}

/// Lets tests close repositories of different entity types in one loop.
protocol ClosableStore { func close() async throws }
extension SQLiteRepository: ClosableStore {}
