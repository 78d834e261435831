import Foundation
import Repositories

/// Bringing text keys written by an earlier version into their canonical spelling.
///
/// Versions before canonical keys (see ``SQLiteKey``) stored a `String` ID as it was spelled,
/// so a table may hold `"cafe\u{301}"` where this version looks up `"caf\u{E9}"`, and may hold
/// both, as two rows, for what Swift takes as one ID. Opening finds such keys once and
/// rewrites each to its canonical spelling, keeping the row's `seq` (its place) and body (the
/// ID as the entity was saved), with a new checksum. Two rows whose keys are one ID are
/// refused rather than merged: the table records when each row was first inserted, not when
/// it was last written, so which of the two is newer cannot be known, and keeping either
/// would silently drop the other.
extension SQLiteTable {
    /// Rewrites every text key that is not in NFC to its NFC spelling, in one transaction.
    ///
    /// Reads first without taking the write lock, and only the `id` index (its text entries
    /// that hold a character from U+0300 on), so a table with no such keys (every table this
    /// version wrote) costs one pass over part of the index, in SQLite, and writes nothing.
    ///
    /// - Throws: `RepositoryError` `conflict` naming the IDs when two rows hold one ID in two
    ///   spellings, with nothing written; `corrupted` when a row to rewrite fails its checksum
    ///   or SQLite's `quick_check` finds damage; SQLite's errors (such as `locked`) mapped by
    ///   the caller.
    func canonicalizeKeys(on connection: SQLiteConnection, location: String) throws {
        guard try !misspelledKeys(on: connection).isEmpty else { return }
        try connection.transaction(.immediate) {
            // Read again under the write lock: another connection may have done this meanwhile.
            let misspelled = try misspelledKeys(on: connection)
            guard !misspelled.isEmpty else { return }
            try refuseTwins(of: misspelled, on: connection, location: location)
            let verdict = try connection.text("PRAGMA quick_check(1)") ?? "no answer"
            guard verdict == "ok" else {
                throw RepositoryError.corrupted(
                    "SQLite's check of the file found damage: \(verdict)", location: location)
            }
            for key in misspelled { try rewrite(key, on: connection, location: location) }
        }
    }

    /// A row's text key that is not in NFC, and its NFC spelling.
    private struct MisspelledKey {
        var seq: Int64
        var text: String
        var canonical: String
    }

    /// Selects the `seq` and key of the rows whose key is text holding a character from
    /// U+0300 on, where a spelling other than NFC can start (see
    /// ``SQLiteKey/isCanonicalAsItIs(_:)``). `id >= ''` and `id < x''` bound the text entries
    /// of the `id` index (integers sort before text, blobs after), and the index holds `seq`
    /// (the rowid), so SQLite reads only the index's text entries.
    private var selectKeysPastU02FF: String {
        "SELECT seq, id FROM \(quotedName) WHERE id >= '' AND id < x'' AND id GLOB ?1"
    }

    /// A GLOB pattern matching text with a character outside U+0001…U+02FF.
    private static let pastU02FFPattern = "*[^\u{1}-\u{2FF}]*"

    /// Every row's key that is text not in NFC, in `seq` order.
    private func misspelledKeys(on connection: SQLiteConnection) throws -> [MisspelledKey] {
        try connection.withStatement(selectKeysPastU02FF) { statement in
            try statement.bind(.text(Self.pastU02FFPattern), at: 1)
            var keys: [MisspelledKey] = []
            while try statement.step() {
                guard case .text(let text) = statement.key(at: 1) else { continue }
                let canonical = SQLiteKey.canonical(text)
                // Byte by byte: as Strings, the two spellings are equal.
                if !canonical.utf8.elementsEqual(text.utf8) {
                    keys.append(MisspelledKey(seq: statement.int64(at: 0), text: text, canonical: canonical))
                }
            }
            return keys.sorted { $0.seq < $1.seq }
        }
    }

    /// Sets the key of the row with `key.seq` to its canonical spelling, with the checksum
    /// that goes with it, once the row's checksum shows it whole.
    private func rewrite(_ key: MisspelledKey, on connection: SQLiteConnection, location: String) throws {
        let stored = try connection.withStatement(selectRowBySeq) { statement in
            try statement.bind(integer: key.seq, at: 1)
            return try statement.step() ? SQLiteStoredRow(of: statement) : nil
        }
        guard let stored, case .text(let text)? = stored.key, text.utf8.elementsEqual(key.text.utf8) else {
            throw RepositoryError.corrupted(
                "The ID index leads the ID \(Self.spelled(key.text)) to the row with seq \(key.seq), which holds another",
                location: location)
        }
        let row = try stored.verified(location: location)
        let canonical = SQLiteKey.text(key.canonical)
        try connection.withStatement(rekey) { statement in
            try statement.bind(integer: key.seq, at: 1)
            try statement.bind(canonical, at: 2)
            try statement.bind(
                integer: Int64(SQLiteRow.checksum(seq: key.seq, key: canonical, body: row.body)), at: 3)
            _ = try statement.step()
        }
    }

    private var selectRowBySeq: String { "SELECT seq, id, body, crc FROM \(quotedName) WHERE seq = ?1" }

    /// Sets a row's key and checksum, by `seq`.
    private var rekey: String { "UPDATE \(quotedName) SET id = ?2, crc = ?3 WHERE seq = ?1" }

    /// Throws when a misspelled row's canonical key is held by another row: already
    /// canonical, or misspelled another way.
    private func refuseTwins(
        of misspelled: [MisspelledKey], on connection: SQLiteConnection, location: String
    ) throws {
        // Keyed by the canonical spelling; String's equality is canonical equivalence, which
        // for canonical spellings is equality of bytes.
        var spellings: [String: [(seq: Int64, text: String)]] = [:]
        for row in misspelled {
            spellings[row.canonical, default: []].append((row.seq, row.text))
        }
        var twins: [[(seq: Int64, text: String)]] = []
        for (canonical, rows) in spellings.sorted(by: { $0.value[0].seq < $1.value[0].seq }) {
            var group = rows
            if let holder = try storedRow(for: .text(canonical), on: connection) {
                group.insert((holder.seq, canonical), at: 0)
            }
            if group.count > 1 { twins.append(group.sorted { $0.seq < $1.seq }) }
        }
        guard let first = twins.first else { return }
        let listed = twins.prefix(10).map { group in
            group.map { "\(Self.spelled($0.text)) (seq \($0.seq))" }.joined(separator: " and ")
        }
        let more = twins.count > 10 ? "; and \(twins.count - 10) more" : ""
        throw RepositoryError(
            .conflict,
            reason:
                "The table \(name) holds \(twins.count == 1 ? "one ID" : "\(twins.count) IDs") in more than one Unicode spelling, as rows an earlier version of SQLiteRepository wrote: \(listed.joined(separator: "; "))\(more). Swift takes each group as one ID, and which row was written last cannot be known, so none was merged",
            recovery:
                "Nothing was changed. Keep one row of each group: delete the others by seq in the sqlite3 shell (DELETE FROM \(quotedName) WHERE seq IN (…)), or with the earlier version delete(id:) each unwanted spelling; then open the file again",
            id: Self.spelled(first[0].text), location: location)
    }

    /// `text` with every character past ASCII written as its Unicode scalars (`cafe\u{301}`),
    /// so two spellings that look alike read differently in an error.
    static func spelled(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            if scalar.isASCII {
                result.unicodeScalars.append(scalar)
            } else {
                result += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            }
        }
        return result
    }
}
