internal import CSQLite
import Foundation
import Repositories

/// One prepared statement, compiled once by its ``SQLiteConnection`` and reused.
///
/// Not thread-safe: it is used only on its connection's executor, by one operation at a time.
/// ``SQLiteConnection/withStatement(_:_:)`` resets it after each use, so no statement keeps a
/// read transaction open between operations.
final class SQLiteStatement {
    let sql: String
    private let handle: OpaquePointer

    init(sql: String, handle: OpaquePointer) {
        self.sql = sql
        self.handle = handle
    }

    deinit {
        sqlite3_finalize(handle)
    }

    // MARK: Binding (parameters are numbered from 1)

    func bind(_ key: SQLiteKey, at index: Int32) throws {
        switch key {
        case .integer(let value):
            try check(sqlite3_bind_int64(handle, index, value))
        case .text(let value):
            var text = value
            let result = text.withUTF8 { buffer -> Int32 in
                guard let length = Int32(exactly: buffer.count) else { return SQLiteError.tooBig }
                return bindText(buffer, length: length, at: index)
            }
            try check(result)
        }
    }

    func bind(integer value: Int64, at index: Int32) throws {
        try check(sqlite3_bind_int64(handle, index, value))
    }

    /// Binds a declared field's value as its column stores it (see ``SQLiteFieldColumn``):
    /// `NULL`, an INTEGER, a REAL (NaN as the text `'NaN'`, since SQLite would bind it as
    /// `NULL`), TEXT, or a date as a REAL of seconds since 2001.
    func bind(field value: FieldValue, at index: Int32) throws {
        switch value {
        case .null: try check(sqlite3_bind_null(handle, index))
        case .bool(let value): try check(sqlite3_bind_int64(handle, index, value ? 1 : 0))
        case .integer(let value): try check(sqlite3_bind_int64(handle, index, value))
        case .double(let value) where value.isNaN: try bind(SQLiteKey.text(Self.notANumber), at: index)
        case .double(let value): try check(sqlite3_bind_double(handle, index, value))
        case .text(let value): try bind(SQLiteKey.text(value), at: index)
        case .date(let value):
            try check(sqlite3_bind_double(handle, index, value.timeIntervalSinceReferenceDate))
        }
    }

    /// Binds `values` to the parameters numbered from `first`, one after another.
    func bind(fields values: [FieldValue], from first: Int32) throws {
        for (offset, value) in values.enumerated() { try bind(field: value, at: first + Int32(offset)) }
    }

    /// How a REAL column of a declared field keeps NaN: as text, which SQLite orders after
    /// every number and equal to itself, as `FieldValue` orders NaN.
    static let notANumber = "NaN"

    /// Binds UTF-8 bytes as TEXT; SQLite copies them before returning.
    func bindText(_ bytes: Data, at index: Int32) throws {
        guard let length = Int32(exactly: bytes.count) else {
            throw SQLiteError(
                extendedCode: SQLiteError.tooBig, message: "a value of \(bytes.count) bytes is too large",
                sql: sql)
        }
        let result = bytes.withUnsafeBytes { buffer in
            bindText(buffer.assumingMemoryBound(to: UInt8.self), length: length, at: index)
        }
        try check(result)
    }

    /// Binds a row's body as the table's `body` column stores it: TEXT for JSON, a BLOB for
    /// any other codec. SQLite copies the bytes before returning.
    func bind(body bytes: Data, as column: SQLiteTable.BodyColumn, at index: Int32) throws {
        guard column == .blob else { return try bindText(bytes, at: index) }
        guard let length = Int32(exactly: bytes.count) else {
            throw SQLiteError(
                extendedCode: SQLiteError.tooBig, message: "a value of \(bytes.count) bytes is too large",
                sql: sql)
        }
        let result = bytes.withUnsafeBytes { buffer -> Int32 in
            // A null pointer would bind NULL, not an empty blob.
            guard let base = buffer.baseAddress, length > 0 else {
                return csqlite_bind_blob_transient(handle, index, "", 0)
            }
            return csqlite_bind_blob_transient(handle, index, base, length)
        }
        try check(result)
    }

    private func bindText(_ buffer: UnsafeBufferPointer<UInt8>, length: Int32, at index: Int32) -> Int32 {
        // An empty buffer may have no address, and a null pointer would bind NULL, not "".
        guard let base = buffer.baseAddress, length > 0 else {
            return csqlite_bind_text_transient(handle, index, "", 0)
        }
        return base.withMemoryRebound(to: CChar.self, capacity: Int(length)) {
            csqlite_bind_text_transient(handle, index, $0, length)
        }
    }

    // MARK: Stepping

    /// Advances to the next row; returns `false` when the statement is done.
    func step() throws -> Bool {
        let result = sqlite3_step(handle)
        switch result {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw error(result)
        }
    }

    /// Rewinds the statement and clears its parameters so it can run again.
    func reset() {
        // sqlite3_reset repeats the error of the last step, which step() already threw.
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    // MARK: Reading columns (numbered from 0)

    func int64(at column: Int32) -> Int64 {
        sqlite3_column_int64(handle, column)
    }

    /// Whether the column holds NULL.
    func isNull(at column: Int32) -> Bool {
        sqlite3_column_type(handle, column) == SQLITE_NULL
    }

    /// The column as a declared field of `type` keeps its value (see ``SQLiteFieldColumn``),
    /// or `nil` when it holds a value of another storage class than that type's.
    func fieldValue(at column: Int32, as type: FieldType) -> FieldValue? {
        switch (sqlite3_column_type(handle, column), type) {
        case (SQLITE_NULL, _): .null
        case (SQLITE_INTEGER, .bool): .bool(int64(at: column) != 0)
        case (SQLITE_INTEGER, .integer): .integer(int64(at: column))
        case (SQLITE_FLOAT, .double): .double(sqlite3_column_double(handle, column))
        case (SQLITE_TEXT, .double) where text(at: column) == Self.notANumber: .double(.nan)
        case (SQLITE_FLOAT, .date):
            .date(Date(timeIntervalSinceReferenceDate: sqlite3_column_double(handle, column)))
        case (SQLITE_TEXT, .text): text(at: column).map(FieldValue.text)
        default: nil
        }
    }

    /// The column's integer, or `nil` when it holds another type (SQLite would convert it).
    func integerIfStored(at column: Int32) -> Int64? {
        sqlite3_column_type(handle, column) == SQLITE_INTEGER ? sqlite3_column_int64(handle, column) : nil
    }

    func text(at column: Int32) -> String? {
        guard let bytes = sqlite3_column_text(handle, column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    /// The column's bytes, whatever its storage class (a TEXT column reads as its UTF-8).
    func data(at column: Int32) -> Data {
        // sqlite3_column_blob must come before sqlite3_column_bytes: the latter may convert.
        guard let bytes = sqlite3_column_blob(handle, column) else { return Data() }
        return Data(bytes: bytes, count: Int(sqlite3_column_bytes(handle, column)))
    }

    /// The column as a key, or `nil` when it holds neither an integer nor text.
    func key(at column: Int32) -> SQLiteKey? {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: return .integer(int64(at: column))
        case SQLITE_TEXT: return text(at: column).map(SQLiteKey.text)
        default: return nil
        }
    }

    // MARK: Errors

    private func check(_ result: Int32) throws {
        guard result == SQLITE_OK else { throw error(result) }
    }

    private func error(_ result: Int32) -> SQLiteError {
        let database = sqlite3_db_handle(handle)
        let message = sqlite3_errmsg(database).map { String(cString: $0) } ?? "no message"
        return SQLiteError(extendedCode: result, message: message, sql: sql)
    }
}
