internal import CSQLite

/// One SQLite connection and its cache of prepared statements.
///
/// Not thread-safe, by design: it is opened with `SQLITE_OPEN_NOMUTEX` (SQLite's
/// "multi-thread" mode, no mutex of its own) because ``SQLiteDatabase`` already runs every
/// call on one serial executor. A connection may move between threads, never be used by two
/// at once.
final class SQLiteConnection {
    /// The path given to SQLite: a file path, or `:memory:`.
    let path: String
    private var handle: OpaquePointer?
    /// Prepared statements by SQL text. The repository's SQL is a small fixed set (the
    /// `IN (…)` lists come in a few padded sizes), so the cache stays small.
    private var statements: [String: SQLiteStatement] = [:]
    /// How many prepared statements the cache keeps at most.
    static let largestStatementCache = 256
    /// The statement ``prepared(_:)`` handed out last.
    private var lastStatement: SQLiteStatement?
    /// Set when a rollback failed, leaving the connection in a transaction it cannot leave;
    /// every later call throws it rather than write into that transaction.
    private var brokenBy: SQLiteError?

    static var inMemoryPath: String { ":memory:" }

    /// Opens (and creates, if absent) the database at `path`, reading and writing; or, when
    /// `readOnly`, opens the existing file for reading only.
    ///
    /// SQLite reads nothing yet: a file that is not a database is only noticed by the first
    /// statement that reads it. A read-only connection never writes the database file, not
    /// even to checkpoint the log when it closes; in WAL mode it still shares the `-wal` and
    /// `-shm` files, creating them if they are missing.
    init(path: String, readOnly: Bool = false) throws {
        self.path = path
        var opened: OpaquePointer?
        let access = readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        let flags = access | SQLITE_OPEN_NOMUTEX
        let result = sqlite3_open_v2(path, &opened, flags, nil)
        guard result == SQLITE_OK, let opened else {
            let message = opened.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
            sqlite3_close_v2(opened)
            throw SQLiteError(extendedCode: result, message: message ?? "could not open \(path)")
        }
        handle = opened
        sqlite3_extended_result_codes(opened, 1)
    }

    deinit {
        statements.removeAll()
        lastStatement = nil
        if let handle { sqlite3_close_v2(handle) }
    }

    // MARK: Settings

    /// How long a statement waits for another connection's lock before failing with
    /// `SQLITE_BUSY`.
    func setBusyTimeout(milliseconds: Int32) throws {
        let handle = try requireHandle()
        try check(sqlite3_busy_timeout(handle, milliseconds), sql: nil)
    }

    /// SQLite's version as a number, 3035000 for 3.35.0.
    static var libraryVersion: Int32 { sqlite3_libversion_number() }

    /// The most `?` parameters one statement may hold (`SQLITE_LIMIT_VARIABLE_NUMBER`), or
    /// 999 (SQLite's historical default) once the connection is closed.
    var variableLimit: Int {
        guard let handle else { return 999 }
        return Int(sqlite3_limit(handle, SQLITE_LIMIT_VARIABLE_NUMBER, -1))
    }

    /// Makes ``SQLiteRow/checksumFunctionName``(seq, id, body) callable from this
    /// connection's SQL: the row checksum of ``SQLiteRow/checksum(seq:key:body:)``, so that an
    /// upsert computes it, for the `seq` it takes, in the statement that writes the row.
    ///
    /// Deterministic, and callable only from top-level SQL, never from a schema's triggers
    /// or views.
    func installRowChecksumFunction() throws {
        let handle = try requireHandle()
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_DIRECTONLY
        let result = sqlite3_create_function_v2(
            handle, SQLiteRow.checksumFunctionName, 3, flags, nil,
            { context, count, arguments in SQLiteRow.checksumFunction(context, count, arguments) }, nil, nil,
            nil)
        try check(result, sql: nil)
    }

    // MARK: Running statements

    /// Runs `body` with the cached statement for `sql`, preparing it on first use, and resets
    /// it afterwards whatever happens.
    func withStatement<Result>(_ sql: String, _ body: (SQLiteStatement) throws -> Result) throws -> Result {
        let statement = try prepared(sql)
        defer { statement.reset() }
        return try body(statement)
    }

    /// Runs `sql` to completion, ignoring any rows.
    func execute(_ sql: String) throws {
        try withStatement(sql) { statement in
            while try statement.step() {}
        }
    }

    /// Runs `sql` and returns the first column of its first row, as text.
    func text(_ sql: String) throws -> String? {
        try withStatement(sql) { statement in
            try statement.step() ? statement.text(at: 0) : nil
        }
    }

    /// Runs `sql` and returns the first column of its first row, as an integer.
    func integer(_ sql: String) throws -> Int64? {
        try withStatement(sql) { statement in
            try statement.step() ? statement.int64(at: 0) : nil
        }
    }

    /// Whether the database has a table named exactly `name`: how the shared tables of records
    /// are looked for before they are read, so a file without them is never changed.
    func hasTable(named name: String) throws -> Bool {
        try withStatement("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?1") {
            statement in
            try statement.bind(.text(name), at: 1)
            return try statement.step() && statement.int64(at: 0) > 0
        }
    }

    // MARK: Transactions

    /// How a transaction takes its locks.
    enum TransactionKind: String {
        /// Takes the write lock at once (waiting up to the busy timeout), so the transaction
        /// never fails halfway for want of it.
        case immediate = "BEGIN IMMEDIATE"
        /// Takes a read snapshot at the first read: for reads that must agree with each other.
        case deferred = "BEGIN DEFERRED"
    }

    /// Runs `body` in one transaction: commits when it returns, rolls back when it throws
    /// (or when the commit fails), then rethrows. Inside a transaction already open, `body`
    /// runs as part of it.
    func transaction<Result>(_ kind: TransactionKind, _ body: () throws -> Result) throws -> Result {
        if let handle, sqlite3_get_autocommit(handle) == 0 { return try body() }
        try execute(kind.rawValue)
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            rollBack()
            throw error
        }
    }

    /// Whether a transaction is open: `false` after SQLite rolled one back on its own, as it
    /// does after some errors (a full disk, an I/O error).
    var isInTransaction: Bool {
        guard let handle else { return false }
        return sqlite3_get_autocommit(handle) == 0
    }

    /// Rolls back the open transaction, if SQLite has not already done so (it does after some
    /// errors, such as a full disk). When even that fails, marks the connection broken.
    private func rollBack() {
        guard let handle, sqlite3_get_autocommit(handle) == 0 else { return }
        do {
            try execute("ROLLBACK")
        } catch let failure as SQLiteError {
            // The caller already hears the error that made us roll back; what must not happen
            // is a later write landing, uncommitted, in the transaction still open here.
            brokenBy = failure
        } catch {
            brokenBy = SQLiteError(extendedCode: SQLiteError.error, message: "\(error)", sql: "ROLLBACK")
        }
    }

    // MARK: Hooks

    /// The closure SQLite calls as each transaction commits, kept alive with the connection.
    private final class CommitHook {
        let body: () -> Bool
        init(_ body: @escaping () -> Bool) { self.body = body }
    }
    private var commitHook: CommitHook?

    /// Calls `body` as each transaction of this connection commits, on the thread running the
    /// commit; a `false` answer turns the commit into a rollback, and the `COMMIT` fails with
    /// `SQLITE_CONSTRAINT_COMMITHOOK`. For tests.
    func setCommitHook(_ body: @escaping () -> Bool) {
        guard let handle else { return }
        let hook = CommitHook(body)
        commitHook = hook
        sqlite3_commit_hook(
            handle,
            { context in
                guard let context else { return 0 }
                return Unmanaged<CommitHook>.fromOpaque(context).takeUnretainedValue().body() ? 0 : 1
            }, Unmanaged.passUnretained(hook).toOpaque())
    }

    // MARK: Closing

    /// Finalizes every statement and closes the connection; a second call does nothing.
    ///
    /// When the last connection to a WAL database closes, SQLite checkpoints the WAL into
    /// the database file and removes the `-wal` and `-shm` files.
    func close() throws {
        guard let handle else { return }
        statements.removeAll()
        lastStatement = nil
        self.handle = nil
        let result = sqlite3_close(handle)
        guard result == SQLITE_OK else {
            let message = sqlite3_errmsg(handle).map { String(cString: $0) } ?? "could not close"
            // Release it anyway: SQLite closes it once whatever still holds it is finalized.
            sqlite3_close_v2(handle)
            throw SQLiteError(extendedCode: result, message: message)
        }
    }

    /// Closes the connection, or releases it to close once its statements are finalized:
    /// for a read-only connection, which has nothing to lose and no one to report to.
    func closeQuietly() {
        guard let handle else { return }
        statements.removeAll()
        lastStatement = nil
        self.handle = nil
        sqlite3_close_v2(handle)
    }

    /// The open handle; throws the error that broke the connection, or `SQLITE_MISUSE` once
    /// it is closed.
    func requireHandle() throws -> OpaquePointer {
        if let brokenBy { throw brokenBy }
        guard let handle else {
            throw SQLiteError(extendedCode: SQLITE_MISUSE, message: "the connection is closed")
        }
        return handle
    }

    // MARK: Private

    private func prepared(_ sql: String) throws -> SQLiteStatement {
        let handle = try requireHandle()
        // A connection mostly runs one statement over and over (a reader's lookups by ID);
        // the texts come from SQLiteTable's stored strings, so comparing with the last one is
        // usually a pointer comparison, where the dictionary would hash the whole text.
        if let last = lastStatement, last.sql == sql { return last }
        if let statement = statements[sql] {
            lastStatement = statement
            return statement
        }
        var compiled: OpaquePointer?
        let result = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &compiled, nil)
        try check(result, sql: sql)
        guard let compiled else {
            throw SQLiteError(
                extendedCode: SQLiteError.error, message: "the SQL holds no statement", sql: sql)
        }
        let statement = SQLiteStatement(sql: sql, handle: compiled)
        // Queries bring statements of many shapes; past a bound the cache starts over rather
        // than grow for ever. A statement in use stays alive with its user.
        if statements.count >= Self.largestStatementCache { statements.removeAll(keepingCapacity: true) }
        statements[sql] = statement
        lastStatement = statement
        return statement
    }

    private func check(_ result: Int32, sql: String?) throws {
        guard result != SQLITE_OK else { return }
        let message = handle.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) } ?? "no message"
        throw SQLiteError(extendedCode: result, message: message, sql: sql)
    }
}
