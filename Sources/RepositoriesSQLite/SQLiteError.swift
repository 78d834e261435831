internal import CSQLite

/// A failure reported by SQLite, kept as it was: its result codes, its message and the SQL
/// that failed.
///
/// ``SQLiteRepository`` never throws it directly: it throws a `RepositoryError` whose
/// `underlying` error is the `SQLiteError`, so a caller who needs SQLite's own diagnosis can
/// read it:
///
/// ```swift
/// catch let error as RepositoryError {
///     if let sqlite = error.underlying as? SQLiteError, sqlite.code == SQLiteError.constraint { … }
/// }
/// ```
public struct SQLiteError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The primary result code: the low byte of ``extendedCode``, such as 19 (`SQLITE_CONSTRAINT`).
    public var code: Int32 { extendedCode & 0xFF }
    /// The extended result code, such as 1811 (`SQLITE_CONSTRAINT_TRIGGER`).
    public var extendedCode: Int32
    /// SQLite's explanation (`sqlite3_errmsg`), such as "UNIQUE constraint failed: notes.id".
    public var message: String
    /// The statement that failed, when the failure came from one.
    public var sql: String?

    /// Creates an error from SQLite's extended result code, its message and the failing SQL.
    public init(extendedCode: Int32, message: String, sql: String? = nil) {
        self.extendedCode = extendedCode
        self.message = message
        self.sql = sql
    }

    /// SQLite's name for the primary result code, such as "database is locked".
    public var codeDescription: String {
        guard let text = sqlite3_errstr(extendedCode) else { return "unknown error" }
        return String(cString: text)
    }

    /// The codes, the message and the SQL, as one line.
    public var description: String {
        var text = "SQLite error \(extendedCode) (\(codeDescription)): \(message)"
        if let sql { text += " — while running: \(sql)" }
        return text
    }
}

extension SQLiteError {
    /// `SQLITE_ERROR`: a generic error, such as a missing table.
    public static let error: Int32 = 1
    /// `SQLITE_PERM`: access permission denied.
    public static let permission: Int32 = 3
    /// `SQLITE_BUSY`: another connection holds the database past the busy timeout.
    public static let busy: Int32 = 5
    /// `SQLITE_LOCKED`: a table is locked by the same connection or a shared cache.
    public static let locked: Int32 = 6
    /// `SQLITE_READONLY`: the database cannot be written.
    public static let readOnly: Int32 = 8
    /// `SQLITE_IOERR`: the operating system reported an I/O error.
    public static let ioError: Int32 = 10
    /// `SQLITE_CORRUPT`: the database file is damaged.
    public static let corrupt: Int32 = 11
    /// `SQLITE_FULL`: the disk is full.
    public static let full: Int32 = 13
    /// `SQLITE_CANTOPEN`: the file cannot be opened.
    public static let cannotOpen: Int32 = 14
    /// `SQLITE_TOOBIG`: a string or blob exceeds SQLite's size limit.
    public static let tooBig: Int32 = 18
    /// `SQLITE_CONSTRAINT`: a constraint or trigger refused the write.
    public static let constraint: Int32 = 19
    /// `SQLITE_NOTADB`: the file is not an SQLite database.
    public static let notADatabase: Int32 = 26
}

extension SQLiteError {
    /// `SQLITE_MISMATCH`: a value of the wrong type, such as a non-integer rowid.
    static let mismatch: Int32 = 20
}
