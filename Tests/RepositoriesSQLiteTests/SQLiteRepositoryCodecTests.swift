import Foundation
import Repositories
import RepositoriesSQLite
import RepositoriesTestSupport
import Testing

/// A table records the codec of its rows; it keeps it for life, whatever later options say,
/// so every table an earlier release wrote opens unchanged, as JSON.
@Suite struct SQLiteRepositoryCodecTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    static func options(_ codec: EntityCodec.Identifier) -> SQLiteOptions {
        SQLiteOptions(tableName: "Todo", codec: codec)
    }

    /// The codec byte recorded for the table `Todo`, or `nil` when none is.
    static func recordedCodec(in url: URL) throws -> [String] {
        let raw = try RawDatabase(url)
        let hasRecords = try raw.strings(
            "SELECT count(*) FROM sqlite_master WHERE name = 'repositories_entity_codecs'")
        guard hasRecords == ["1"] else { return [] }
        return try raw.strings("SELECT codec FROM repositories_entity_codecs WHERE table_name = 'Todo'")
    }

    /// The storage class of every row's body, as SQLite's `typeof` names it, and the body
    /// column's declared type.
    static func bodies(in url: URL) throws -> (stored: Set<String>, declared: [String]) {
        let raw = try RawDatabase(url)
        return (
            Set(try raw.strings("SELECT typeof(body) FROM Todo")),
            try raw.strings("SELECT type FROM pragma_table_info('Todo') WHERE name = 'body'")
        )
    }

    @Test func aNewTableRecordsTheCodecTheOptionsName() async throws {
        let binaryURL = directory.file()
        let binary = try await SQLiteRepository<TodoV1>(
            fileURL: binaryURL, options: SQLiteOptions(tableName: "Todo"))
        #expect(binary.codec.identifier == .binary, "binary unless the options say otherwise")
        try await binary.save(TodoV1.make(1, title: "readable only when decoded"))
        try await binary.close()
        #expect(try Self.recordedCodec(in: binaryURL) == ["\(EntityCodec.Identifier.binary.rawValue)"])
        #expect(try Self.bodies(in: binaryURL) == (["blob"], ["BLOB"]))

        let jsonURL = directory.file()
        let json = try await SQLiteRepository<TodoV1>(fileURL: jsonURL, options: Self.options(.json))
        #expect(json.codec.identifier == .json)
        try await json.save(TodoV1.make(1, title: "readable in the file"))
        try await json.close()
        #expect(try Self.recordedCodec(in: jsonURL) == ["\(EntityCodec.Identifier.json.rawValue)"])
        #expect(try Self.bodies(in: jsonURL) == (["text"], ["TEXT"]))
        let body = try RawDatabase(jsonURL).strings("SELECT body FROM Todo")
        #expect(body.first?.contains(#""title":"readable in the file""#) == true)
    }

    @Test(arguments: [EntityCodec.Identifier.json, .binary])
    func aTableKeepsItsCodecThroughWritesAndOtherOptions(created: EntityCodec.Identifier) async throws {
        let url = directory.file()
        let first = try await SQLiteRepository<TodoV1>(fileURL: url, options: Self.options(created))
        try await first.save(contentsOf: (1...50).map { TodoV1.make($0) })
        try await first.close()

        let other: EntityCodec.Identifier = created == .json ? .binary : .json
        var options = Self.options(other)
        options.synchronous = .normal
        let reopened = try await SQLiteRepository<TodoV1>(fileURL: url, options: options)
        #expect(reopened.codec.identifier == created, "the table's codec, not the options'")
        try await reopened.save(TodoV1.make(51))
        try await reopened.delete(id: 3)
        try await reopened.save(contentsOf: [TodoV1.make(2, title: "replaced"), TodoV1.make(52)])
        try await reopened.close()
        #expect(try Self.recordedCodec(in: url) == ["\(created.rawValue)"])
        #expect(try Self.bodies(in: url).stored == [created == .json ? "text" : "blob"])

        let last = try await SQLiteRepository<TodoV1>(fileURL: url, options: SQLiteOptions(tableName: "Todo"))
        var expected = (1...52).filter { $0 != 3 }.map { TodoV1.make($0) }
        expected[1] = TodoV1.make(2, title: "replaced")
        #expect(try await last.fetchAll() == expected)
        try await last.close()
    }

    /// A copy of the checked-in table a release before codecs (and versions) wrote.
    func fixture() throws -> URL {
        let fixture = try #require(
            Bundle.module.url(forResource: "Fixtures", withExtension: nil)?
                .appending(path: "Migrations/todos-v1.sqlite"))
        let copy = directory.file("todos-v1.sqlite")
        try FileManager.default.copyItem(at: fixture, to: copy)
        return copy
    }

    @Test func aTableWrittenBeforeCodecsStaysJSONWithTheDefaultOptions() async throws {
        let url = try fixture()
        let store = try await SQLiteRepository<TodoV1>(
            fileURL: url, options: SQLiteOptions(tableName: "Todo"))
        #expect(store.codec.identifier == .json)
        #expect(try await store.fetchAll().count == 5)
        try await store.save(TodoV1.make(7, title: "written after codecs"))
        try await store.save(TodoV1.make(1, title: "replaced after codecs"))
        try await store.close()
        #expect(try Self.recordedCodec(in: url) == [], "no record: a table without one is JSON")
        #expect(try Self.bodies(in: url) == (["text"], ["TEXT"]))
        let bodies = try RawDatabase(url).strings("SELECT body FROM Todo WHERE id IN (1, 7) ORDER BY id")
        #expect(bodies.count == 2)
        #expect(bodies.allSatisfy { $0.hasPrefix("{") && $0.contains(#""title":""#) }, "\(bodies)")
    }

    @Test func aTableInACodecThisVersionDoesNotKnowIsRefusedAndLeftAsItWas() async throws {
        let url = directory.file()
        let store = try await SQLiteRepository<TodoV1>(fileURL: url, options: Self.options(.binary))
        try await store.save(TodoV1.make(1))
        try await store.close()
        try RawDatabase(url).execute(
            "UPDATE repositories_entity_codecs SET codec = 90 WHERE table_name = 'Todo'")
        let before = try Data(contentsOf: url)

        let error = await #expect(throws: RepositoryError.self) {
            _ = try await SQLiteRepository<TodoV1>(fileURL: url, options: Self.options(.binary))
        }
        #expect(error?.code == .rejected)
        #expect(error?.reason.contains("codec 0x5A") == true, "\(error?.reason ?? "")")
        #expect(error?.recovery?.contains("newer version") == true)
        #expect(try Data(contentsOf: url) == before, "the file was left untouched")
    }

    @Test func aNewTableInACodecThisVersionDoesNotKnowIsRefused() async throws {
        let options = SQLiteOptions(tableName: "Todo", codec: EntityCodec.Identifier(rawValue: 0x5A))
        let error = await #expect(throws: RepositoryError.self) {
            _ = try await SQLiteRepository<TodoV1>(fileURL: directory.file(), options: options)
        }
        #expect(error?.code == .rejected)
        #expect(throws: RepositoryError.self) { _ = try SQLiteRepository<TodoV1>.inMemory(options: options) }
    }

    @Test func aBodyColumnThatDisagreesWithTheRecordedCodecIsCorrupted() async throws {
        // A binary table whose record is gone reads as JSON, which a BLOB body column denies.
        let url = directory.file()
        let store = try await SQLiteRepository<TodoV1>(fileURL: url, options: Self.options(.binary))
        try await store.save(TodoV1.make(1))
        try await store.close()
        try RawDatabase(url).execute("DELETE FROM repositories_entity_codecs")
        let before = try Data(contentsOf: url)
        let error = await #expect(throws: RepositoryError.self) {
            _ = try await SQLiteRepository<TodoV1>(fileURL: url, options: Self.options(.binary))
        }
        #expect(error?.code == .corrupted)
        #expect(error?.reason.contains("declared BLOB") == true, "\(error?.reason ?? "")")
        #expect(try Data(contentsOf: url) == before)
    }

    @Test(arguments: [EntityCodec.Identifier.json, .binary])
    func anInMemoryTableUsesTheOptionsCodec(codec: EntityCodec.Identifier) async throws {
        let store = try SQLiteRepository<TodoV1>.inMemory(options: Self.options(codec))
        #expect(store.codec.identifier == codec)
        try await store.save(contentsOf: (1...3).map { TodoV1.make($0) })
        #expect(try await store.fetchAll() == (1...3).map { TodoV1.make($0) })
        try await store.close()
    }
}
