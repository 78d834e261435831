import Foundation
import Repositories
import RepositoriesTestSupport
import Testing

@testable import RepositoriesSQLite

/// IDs that are `==` in Swift are one entity, however they are spelled: `"caf\u{E9}"` and
/// `"cafe\u{301}"` are equal Strings with one hash, and the store keeps one row for them, as
/// `InMemoryRepository` and `FileRepository` keep one entry. Tables an earlier version wrote,
/// with keys as they were spelled, are brought to the canonical spelling on open, or refused
/// when they hold one ID twice.
@Suite struct SQLiteRepositoryEqualIDTests {
    /// A directory of its own for each test, removed with it.
    let scratch: TemporaryDirectory

    init() throws {
        scratch = try TemporaryDirectory()
    }

    static let composed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"

    static func note(_ id: String, _ text: String) -> Note {
        var note = Note.make(index: 0, revision: 0)
        note.id = id
        note.text = text
        return note
    }

    @Test func equalStringIDsSpelledDifferentlyAreOneEntity() async throws {
        #expect(Self.composed == Self.decomposed)
        let url = scratch.file()
        // JSON, so SQL can read the ID inside the body.
        let store = try await SQLiteRepository<Note>(fileURL: url, options: SQLiteOptions(codec: .json))
        try await store.save(Self.note(Self.composed, "first"))
        try await store.save(Self.note(Self.decomposed, "second"))

        #expect(try await store.count() == 1)
        let all = try await store.fetchAll()
        #expect(all.map(\.text) == ["second"])
        #expect(Dictionary(uniqueKeysWithValues: all.map { ($0.id, $0) }).count == 1)
        for spelling in [Self.composed, Self.decomposed] {
            let fetched = try #require(try await store.fetch(id: spelling))
            #expect(fetched.text == "second")
            // The body keeps the ID as it was saved; only the key is canonical.
            #expect(Array(fetched.id.unicodeScalars) == Array(Self.decomposed.unicodeScalars))
        }
        #expect(try await store.fetch(ids: [Self.composed, Self.decomposed]).map(\.text) == ["second"])

        let raw = try RawDatabase(url)
        #expect(try raw.strings(#"SELECT hex(id) FROM "Note""#) == [hex(Self.composed)])
        #expect(
            try raw.strings(#"SELECT hex(json_extract(body, '$.id')) FROM "Note""#) == [hex(Self.decomposed)])

        try await store.delete(id: Self.composed)
        #expect(try await store.count() == 0)
        try await store.save(Self.note(Self.composed, "third"))
        try await store.delete(ids: [Self.decomposed])
        #expect(try await store.fetchAll().isEmpty)
        try await store.close()
    }

    @Test func equalStringsInsideACodableIDAreOneEntity() async throws {
        let store = try await SQLiteRepository<Keyed>(fileURL: scratch.file())
        try await store.save(Keyed(id: Keyed.Key(shelf: Self.composed, slot: 1), text: "first"))
        try await store.save(Keyed(id: Keyed.Key(shelf: Self.decomposed, slot: 1), text: "second"))
        #expect(try await store.fetchAll().map(\.text) == ["second"])
        #expect(try await store.fetch(id: Keyed.Key(shelf: Self.composed, slot: 1))?.text == "second")
        try await store.close()
    }

    @Test func keysAnEarlierVersionSpelledOtherwiseAreMadeCanonicalOnceOnOpen() async throws {
        let url = scratch.file()
        try await writeEarlierVersionTable(
            at: url,
            rows: [
                (1, Self.note("a", "plain")), (2, Self.note(Self.decomposed, "accented")),
                (3, Self.note("\u{212B}", "angstrom sign")), (4, Self.note("z", "last")),
            ])

        let store = try await SQLiteRepository<Note>(fileURL: url)
        #expect(try await store.fetchAll().map(\.text) == ["plain", "accented", "angstrom sign", "last"])
        let accented = try #require(try await store.fetch(id: Self.composed))
        #expect(Array(accented.id.unicodeScalars) == Array(Self.decomposed.unicodeScalars))
        #expect(try await store.fetch(id: "\u{C5}")?.text == "angstrom sign")
        try await store.close()

        let raw = try RawDatabase(url)
        let rows = #"SELECT seq || ':' || hex(id) || ':' || crc FROM "Note" ORDER BY seq"#
        let rewritten = try raw.strings(rows)
        #expect(
            rewritten.map { $0.split(separator: ":").prefix(2).joined(separator: ":") } == [
                "1:\(hex("a"))", "2:\(hex(Self.composed))", "3:\(hex("\u{C5}"))", "4:\(hex("z"))",
            ])
        // Opening again finds nothing to do and writes nothing.
        try await SQLiteRepository<Note>(fileURL: url).close()
        #expect(try raw.strings(rows) == rewritten)
    }

    @Test func oneIDTwiceInAnEarlierVersionTableIsRefusedNamingBothAndLeftAlone() async throws {
        let url = scratch.file()
        try await writeEarlierVersionTable(
            at: url,
            rows: [
                (1, Self.note(Self.composed, "composed")), (2, Self.note("b", "other")),
                (3, Self.note(Self.decomposed, "decomposed")),
                // The Kelvin sign's canonical spelling is the ASCII K.
                (4, Self.note("K", "ascii")), (5, Self.note("\u{212A}", "kelvin")),
            ])
        let raw = try RawDatabase(url)
        let rows = #"SELECT seq || ':' || hex(id) || ':' || crc FROM "Note" ORDER BY seq"#
        let before = try raw.strings(rows)

        let error = try await #require(throws: RepositoryError.self) {
            _ = try await SQLiteRepository<Note>(fileURL: url)
        }
        #expect(error.code == .conflict)
        #expect(error.reason.contains(#"caf\u{E9} (seq 1) and cafe\u{301} (seq 3)"#), "\(error)")
        #expect(error.reason.contains(#"K (seq 4) and \u{212A} (seq 5)"#), "\(error)")
        #expect(error.recovery?.contains("DELETE FROM") == true)
        #expect(error.recovery?.contains("Nothing was changed") == true)
        #expect(try raw.strings(rows) == before)

        // Keeping one row of each group, as the error says, lets the table open.
        try raw.execute(#"DELETE FROM "Note" WHERE seq IN (1, 4)"#)
        let store = try await SQLiteRepository<Note>(fileURL: url)
        #expect(try await store.fetchAll().map(\.text) == ["other", "decomposed", "kelvin"])
        #expect(try await store.fetch(id: Self.composed)?.text == "decomposed")
        #expect(try await store.fetch(id: "K")?.text == "kelvin")
        try await store.close()
    }

    @Test func aDamagedRowToRewriteIsCorruptionNotRewritten() async throws {
        let url = scratch.file()
        try await writeEarlierVersionTable(at: url, rows: [(1, Self.note(Self.decomposed, "accented"))])
        let raw = try RawDatabase(url)
        try raw.execute(#"UPDATE "Note" SET body = replace(body, 'accented', 'tampered')"#)
        let error = try await #require(throws: RepositoryError.self) {
            _ = try await SQLiteRepository<Note>(fileURL: url)
        }
        #expect(error.code == .corrupted)
        #expect(try raw.strings(#"SELECT hex(id) FROM "Note""#) == [hex(Self.decomposed)])
    }

    // MARK: Support

    /// Writes `rows` as an earlier version did: keys spelled as the IDs are, each with its
    /// checksum, in a table of today's shape.
    func writeEarlierVersionTable(at url: URL, rows: [(seq: Int64, note: Note)]) async throws {
        // Earlier versions wrote JSON.
        try await SQLiteRepository<Note>(fileURL: url, options: SQLiteOptions(codec: .json)).close()
        let raw = try RawDatabase(url)
        for (seq, note) in rows {
            let body = try JSONEncoder().encode(note)
            let crc = SQLiteRow.checksum(seq: seq, key: .text(note.id), body: body)
            try raw.execute(
                #"INSERT INTO "Note" (seq, id, body, crc) VALUES "#
                    + "(\(seq), \(literal(note.id)), \(literal(String(decoding: body, as: UTF8.self))), \(crc))"
            )
        }
    }

    /// `text` as an SQL string literal, its scalars as they are (no Foundation call that
    /// might compare or rebuild it).
    func literal(_ text: String) -> String {
        var literal = "'"
        for scalar in text.unicodeScalars {
            if scalar == "'" { literal.unicodeScalars.append(scalar) }
            literal.unicodeScalars.append(scalar)
        }
        literal.unicodeScalars.append("'")
        return literal
    }

    /// The hexadecimal of `text`'s UTF-8, as SQLite's `hex()` writes it.
    func hex(_ text: String) -> String {
        text.utf8.map { String(format: "%02X", $0) }.joined()
    }
}
