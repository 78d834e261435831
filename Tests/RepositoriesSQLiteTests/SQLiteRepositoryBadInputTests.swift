import Foundation
import Repositories
import RepositoriesSQLite
import RepositoriesTestSupport
import RepositoriesTesting
import Testing

/// What the repository does with input it cannot store or files it cannot read: a clear
/// error, and nothing written or changed.
@Suite struct SQLiteRepositoryBadInputTests {
    /// A directory of its own for each test, removed with it.
    let scratch: TemporaryDirectory

    init() throws {
        scratch = try TemporaryDirectory()
    }

    /// A JSON table: JSON cannot encode a NaN, which the binary codec keeps.
    static let json = SQLiteOptions(codec: .json)

    @Test func nonEncodableEntityThrowsEncodingFailedAndWritesNothing() async throws {
        let url = scratch.file()
        let store = try await SQLiteRepository<Note>(fileURL: url, options: Self.json)
        try await store.save(.make(index: 1, revision: 0))
        let error = try await #require(throws: RepositoryError.self) {
            try await store.save(.unencodable(index: 2))
        }
        #expect(error.code == .encodingFailed)
        #expect(error.id == Note.make(index: 2, revision: 0).id)
        #expect(try await store.fetchAll() == [.make(index: 1, revision: 0)])
        try await store.close()
        let reopened = try await SQLiteRepository<Note>(fileURL: url)
        #expect(try await reopened.fetchAll() == [.make(index: 1, revision: 0)])
        try await reopened.close()
    }

    @Test func batchWithAnUnencodableEntityWritesNothing() async throws {
        let url = scratch.file()
        let store = try await SQLiteRepository<Ticket>(fileURL: url, options: Self.json)
        let before = [Ticket.make(index: 1, revision: 0), .make(index: 2, revision: 0)]
        try await store.save(contentsOf: before)
        let batch = [
            Ticket.make(index: 3, revision: 0), .make(index: 1, revision: 1), .unencodable(index: 4),
        ]
        let error = try await #require(throws: RepositoryError.self) {
            try await store.save(contentsOf: batch)
        }
        #expect(error.code == .encodingFailed)
        #expect(error.id == Ticket.make(index: 4, revision: 0).id.uuidString)
        try await store.close()
        let reopened = try await SQLiteRepository<Ticket>(fileURL: url)
        #expect(try await reopened.fetchAll() == before)
        try await reopened.close()
    }

    @Test func batchRefusedMidwayBySQLiteIsRolledBackAndKeepsSQLitesCode() async throws {
        let url = scratch.file()
        let store = try await SQLiteRepository<ConformanceEntity>(fileURL: url)
        let before = (1...3).map { ConformanceEntity.make(index: $0, revision: 0) }
        try await store.save(contentsOf: before)
        let raw = try RawDatabase(url)
        try raw.execute(
            """
            CREATE TRIGGER refuse_seven BEFORE INSERT ON "ConformanceEntity" WHEN NEW.id = 7
            BEGIN SELECT RAISE(ABORT, 'seven is refused'); END
            """)
        // #2 is replaced and #5, #6 inserted before #7 fails: all of it must roll back.
        let batch = [2, 5, 6, 7, 8].map { ConformanceEntity.make(index: $0, revision: 1) }
        let error = try await #require(throws: RepositoryError.self) {
            try await store.save(contentsOf: batch)
        }
        #expect(error.code == .conflict)
        let sqlite = try #require(error.underlying as? SQLiteError)
        #expect(sqlite.code == SQLiteError.constraint)
        #expect(sqlite.extendedCode == 1_811)  // SQLITE_CONSTRAINT_TRIGGER
        #expect(sqlite.message == "seven is refused")
        #expect(sqlite.sql?.hasPrefix("INSERT INTO \"ConformanceEntity\"") == true)
        #expect(try await store.fetchAll() == before)
        // The connection is usable afterwards: the failed batch left no transaction open.
        try await store.save(contentsOf: [.make(index: 9, revision: 0)])
        try await store.close()
        let reopened = try await SQLiteRepository<ConformanceEntity>(fileURL: url)
        #expect(try await reopened.fetchAll() == before + [.make(index: 9, revision: 0)])
        try await reopened.close()
    }

    @Test func rowFromAnOlderModelThrowsDecodingFailedNamingIt() async throws {
        let url = scratch.file()
        let options = SQLiteOptions(tableName: "notes")
        let current = try await SQLiteRepository<NoteWithPriority>(fileURL: url, options: options)
        try await current.save(NoteWithPriority(id: "a", text: "new", priority: 1))
        try await current.close()
        let older = try await SQLiteRepository<NoteWithoutPriority>(fileURL: url, options: options)
        try await older.save(NoteWithoutPriority(id: "b", text: "old"))
        try await older.close()

        let store = try await SQLiteRepository<NoteWithPriority>(fileURL: url, options: options)
        for read in [
            { _ = try await store.fetchAll() },
            { _ = try await store.fetch(id: "b") },
            { _ = try await store.fetch(ids: ["a", "b"]) },
            { _ = try await store.fetch(Query<NoteWithPriority>().filter { _ in true }.limit(1)) },
        ] as [@Sendable () async throws -> Void] {
            let error = try await #require(throws: RepositoryError.self) { try await read() }
            #expect(error.code == .decodingFailed)
            #expect(error.record == "b")
            #expect(error.location?.contains(url.lastPathComponent) == true)
            #expect(error.underlying is DecodingError)
        }
        #expect(try await store.fetch(id: "a") == NoteWithPriority(id: "a", text: "new", priority: 1))
        #expect(try await store.count() == 2)
        try await store.close()
    }

    @Test(arguments: NotADatabase.allCases)
    func fileThatIsNotADatabaseThrowsCorruptedAndIsLeftAsItWas(_ kind: NotADatabase) async throws {
        let url = scratch.file()
        let bytes = kind.bytes
        try bytes.write(to: url)
        let error = try await #require(throws: RepositoryError.self) {
            _ = try await SQLiteRepository<Note>(fileURL: url)
        }
        #expect(error.code == .corrupted)
        #expect(error.location?.contains(url.path(percentEncoded: false)) == true)
        let sqlite = try #require(error.underlying as? SQLiteError)
        #expect([SQLiteError.notADatabase, SQLiteError.corrupt].contains(sqlite.code))
        #expect(try Data(contentsOf: url) == bytes)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: scratch.url.path())
        #expect(leftovers == [url.lastPathComponent])
    }

    @Test func emptyFileOpensAsANewStore() async throws {
        let url = scratch.file()
        #expect(FileManager.default.createFile(atPath: url.path(percentEncoded: false), contents: Data()))
        let store = try await SQLiteRepository<Note>(fileURL: url)
        #expect(try await store.fetchAll().isEmpty)
        try await store.save(.make(index: 1, revision: 0))
        try await store.close()
        let reopened = try await SQLiteRepository<Note>(fileURL: url)
        #expect(try await reopened.fetchAll() == [.make(index: 1, revision: 0)])
        try await reopened.close()
    }

    @Test func damagedPageThrowsCorruptedNeverAShortList() async throws {
        let url = scratch.file()
        let store = try await SQLiteRepository<ConformanceEntity>(fileURL: url)
        try await store.save(contentsOf: (0..<200).map { .make(index: $0, revision: 0) })
        try await store.close()  // checkpoints the log into the file
        // Page 2 is the root of the first table created: overwrite all of it.
        var bytes = try Data(contentsOf: url)
        let pageSize = 4_096
        try #require(bytes.count > 3 * pageSize)
        bytes.replaceSubrange(pageSize..<(2 * pageSize), with: Data(repeating: 0xA5, count: pageSize))
        try bytes.write(to: url)

        // The header and schema are intact, so opening succeeds; the damage shows on the
        // reads that reach the table (count() may answer from the intact id index).
        let damaged = try await SQLiteRepository<ConformanceEntity>(fileURL: url)
        for read in [
            { _ = try await damaged.fetchAll() },
            { _ = try await damaged.fetch(id: 5) },
            { _ = try await damaged.fetch(ids: [5, 6]) },
        ] as [@Sendable () async throws -> Void] {
            let error = try await #require(throws: RepositoryError.self) { try await read() }
            #expect(error.code == .corrupted)
            #expect((error.underlying as? SQLiteError)?.code == SQLiteError.corrupt)
        }
        try await damaged.close()
        #expect(try Data(contentsOf: url) == bytes)
    }

    @Test func directoryIsRejectedWithAClearError() async throws {
        let error = try await #require(throws: RepositoryError.self) {
            _ = try await SQLiteRepository<Note>(fileURL: scratch.url)
        }
        #expect(error.code == .rejected)
        #expect(error.reason.contains("is a directory"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path()).isEmpty)
    }

    @Test func missingDirectoryThrowsUnavailableWithSQLitesCode() async throws {
        let url = scratch.url.appending(path: "missing/store.sqlite")
        let error = try await #require(throws: RepositoryError.self) {
            _ = try await SQLiteRepository<Note>(fileURL: url)
        }
        #expect(error.code == .unavailable)
        #expect((error.underlying as? SQLiteError)?.code == SQLiteError.cannotOpen)
    }

    @Test func nonFileURLIsRejected() async throws {
        let error = try await #require(throws: RepositoryError.self) {
            _ = try await SQLiteRepository<Note>(fileURL: URL(string: "https://example.com/notes.sqlite")!)
        }
        #expect(error.code == .rejected)
    }

    @Test func callsAfterCloseThrowClosed() async throws {
        let store = try await SQLiteRepository<Note>(fileURL: scratch.file())
        try await store.save(.make(index: 1, revision: 0))
        try await store.close()
        try await store.close()  // a second close does nothing
        let note = Note.make(index: 1, revision: 0)
        let calls: [@Sendable () async throws -> Void] = [
            { _ = try await store.fetch(id: note.id) },
            { _ = try await store.fetchAll() },
            { _ = try await store.fetch(ids: [note.id]) },
            { _ = try await store.fetch(Query<Note>()) },
            { _ = try await store.count() },
            { try await store.save(note) },
            { try await store.save(contentsOf: []) },
            { try await store.delete(id: note.id) },
            { try await store.delete(ids: [note.id]) },
            { try await store.deleteAll() },
        ]
        for call in calls {
            let error = try await #require(throws: RepositoryError.self) { try await call() }
            #expect(error.code == .closed)
        }
    }

    @Test func inMemoryCallsAfterCloseThrowClosed() async throws {
        let store = try SQLiteRepository<Note>.inMemory()
        #expect(store.fileURL == nil)
        try await store.save(.make(index: 1, revision: 0))
        try await store.close()
        let error = try await #require(throws: RepositoryError.self) { _ = try await store.fetchAll() }
        #expect(error.code == .closed)
    }
}

// MARK: - Fixtures

/// A note as a newer model writes it, with a required `priority`.
struct NoteWithPriority: Identifiable, Codable, Sendable, Equatable {
    var id: String
    var text: String
    var priority: Int
}

/// The same note as an older model wrote it, before `priority` existed.
struct NoteWithoutPriority: Identifiable, Codable, Sendable, Equatable {
    var id: String
    var text: String
}

/// Files that are not SQLite databases.
enum NotADatabase: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case jpeg
    case randomBytes
    case fewRandomBytes
    case text
    case sqliteMagicThenGarbage

    var testDescription: String { rawValue }

    var bytes: Data {
        var random = SeededRandomNumberGenerator(seed: 7)
        func randomBytes(_ count: Int) -> [UInt8] {
            (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
        }
        switch self {
        case .jpeg:
            let header: [UInt8] =
                [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0x00, 0x01, 0x01]
            return Data(header + randomBytes(8_192))
        case .randomBytes:
            return Data(randomBytes(4_096))
        case .fewRandomBytes:
            return Data(randomBytes(10))
        case .text:
            return Data(String(repeating: "This is a shopping list, not a database.\n", count: 200).utf8)
        case .sqliteMagicThenGarbage:
            return Data(Array("SQLite format 3\u{0}".utf8) + randomBytes(8_192 - 16))
        }
    }
}
