internal import CSQLite
import Foundation
import Repositories

/// An entity's row as the repository hands it over to be written: its key, its encoded body,
/// and the values of its declared fields (see ``SQLiteFieldColumn``).
struct SQLiteRow: Sendable {
    var key: SQLiteKey
    var body: Data
    /// The entity's declared fields' values, in the table's field order; empty for an entity
    /// that declares none, and for a row read back (reads take the entity from its body).
    var fields: [FieldValue] = []

    /// The value of the row's `crc` column: CRC-32 over the row's `seq`, its key and its body.
    ///
    /// The bytes summed, in order (integers little-endian):
    ///
    /// ```
    /// seq:i64  key  body
    /// key := 0x01 value:i64                      an INTEGER id
    ///      | 0x02 length:u64 UTF-8[length]       a TEXT id
    /// ```
    ///
    /// The tag and the length keep the forms apart, so no two rows that differ in any column
    /// sum the same bytes. `seq` is included so that a damaged `seq` (which would move the row
    /// in insertion order) is caught like a damaged body.
    ///
    /// - Complexity: O(*n*) in the length of the key and body.
    static func checksum(seq: Int64, key: SQLiteKey, body: Data) -> UInt32 {
        var crc = checksum(of: seq, continuing: 0)
        switch key {
        case .integer(let value):
            crc = checksum(of: UInt8(1), continuing: crc)
            crc = checksum(of: value, continuing: crc)
        case .text(let value):
            var text = value
            crc = checksum(of: UInt8(2), continuing: crc)
            crc = text.withUTF8 { bytes in
                let length = checksum(of: UInt64(bytes.count), continuing: crc)
                return CRC32.checksum(UnsafeRawBufferPointer(bytes), continuing: length)
            }
        }
        return body.withUnsafeBytes { CRC32.checksum($0, continuing: crc) }
    }

    private static func checksum(of value: some FixedWidthInteger, continuing crc: UInt32) -> UInt32 {
        withUnsafeBytes(of: value.littleEndian) { CRC32.checksum($0, continuing: crc) }
    }

    /// The name of the SQL function that computes ``checksum(seq:key:body:)`` (see
    /// ``SQLiteConnection/installRowChecksumFunction()``).
    static let checksumFunctionName = "repositories_row_crc"

    /// The SQL function `repositories_row_crc(seq, id, body)`: the checksum of a row as
    /// stored, reading its values as a read of the row does (``SQLiteStatement/key(at:)``,
    /// ``SQLiteStatement/data(at:)``), so the two always agree. An argument of another type
    /// makes the statement fail: with `SQLITE_MISMATCH` for a `seq` that is not an integer,
    /// as when the next `seq` after `Int64.max` overflows to a real number.
    static func checksumFunction(
        _ context: OpaquePointer?, _ count: Int32, _ arguments: UnsafeMutablePointer<OpaquePointer?>?
    ) {
        guard count == 3, let arguments, sqlite3_value_type(arguments[0]) == SQLITE_INTEGER else {
            sqlite3_result_error(
                context, "\(checksumFunctionName) takes an integer seq, an id and a body", -1)
            sqlite3_result_error_code(context, SQLITE_MISMATCH)
            return
        }
        let seq = sqlite3_value_int64(arguments[0])
        let key: SQLiteKey
        switch sqlite3_value_type(arguments[1]) {
        case SQLITE_INTEGER:
            key = .integer(sqlite3_value_int64(arguments[1]))
        case SQLITE_TEXT:
            guard let text = sqlite3_value_text(arguments[1]) else {
                sqlite3_result_error_nomem(context)
                return
            }
            let length = Int(sqlite3_value_bytes(arguments[1]))
            key = .text(String(decoding: UnsafeBufferPointer(start: text, count: length), as: UTF8.self))
        default:
            sqlite3_result_error(context, "\(checksumFunctionName) takes an INTEGER or TEXT id", -1)
            return
        }
        // sqlite3_value_blob must come before sqlite3_value_bytes: the latter may convert.
        let bytes = sqlite3_value_blob(arguments[2])
        let length = Int(sqlite3_value_bytes(arguments[2]))
        let body = bytes.map { Data(bytes: $0, count: length) } ?? Data()
        sqlite3_result_int64(context, Int64(checksum(seq: seq, key: key, body: body)))
    }
}

/// A row as read back from the table, not yet trusted: every column as SQLite returned it.
///
/// SQLite keeps no checksum of its own on a row's content, so a flipped bit in a body would
/// be served as different data. ``verified(location:)`` recomputes the row's checksum and
/// hands out the row only when it matches.
struct SQLiteStoredRow: Sendable {
    /// The row's `seq` (its rowid).
    var seq: Int64
    /// The `id` column, or `nil` when it holds neither an INTEGER nor TEXT (never written so).
    var key: SQLiteKey?
    /// The `body` column's bytes.
    var body: Data
    /// The `crc` column, or `nil` when it holds no INTEGER.
    var checksum: Int64?

    /// The row, once its checksum matches its `seq`, key and body.
    ///
    /// - Throws: `RepositoryError` `corrupted` naming the row's `seq` and ID (never its body).
    func verified(location: String) throws -> SQLiteRow {
        guard let key, let checksum, checksum == Int64(SQLiteRow.checksum(seq: seq, key: key, body: body))
        else {
            throw damage("its checksum does not match its content", location: location)
        }
        return SQLiteRow(key: key, body: body)
    }

    /// The row, once its checksum matches and its `seq` is larger than `previousSeq`, the
    /// `seq` of the row read before it (`nil` for the first row).
    ///
    /// - Throws: `RepositoryError` `corrupted` naming the row's `seq` and ID.
    func verified(after previousSeq: Int64?, location: String) throws -> SQLiteRow {
        let row = try verified(location: location)
        if let previousSeq, seq <= previousSeq {
            throw damage("it comes after the row with seq \(previousSeq) in the table", location: location)
        }
        return row
    }

    /// The `corrupted` error for this row: `reason` says what is wrong with it.
    func damage(_ reason: String, location: String) -> RepositoryError {
        let id = Self.describe(key)
        var error = RepositoryError.corrupted(
            "The row with seq \(seq) and ID \(id) is damaged: \(reason)", location: location)
        error.id = id
        error.record = id
        return error
    }

    /// The key as an error names it: at most 100 characters, since a damaged key may be any text.
    static func describe(_ key: SQLiteKey?) -> String {
        guard let key else { return "(neither an integer nor text)" }
        let text = key.description
        return text.count > 100 ? String(text.prefix(100)) + "…" : text
    }
}
