import Foundation
import Repositories

/// An entity's row as the repository hands it over: its key and its JSON body.
struct SQLiteRow: Sendable {
    var key: SQLiteKey
    var body: Data
}

/// The one connection behind a ``SQLiteRepository``, as an actor running on its own
/// dispatch queue (``SQLiteExecutor``).
///
/// Every method is synchronous inside the actor, so it runs whole before the next call
/// starts: callers are served one at a time, in arrival order, and the connection is never
/// touched by two threads at once. Methods take and return only keys and bytes; encoding and
/// decoding happen in the callers' tasks, in parallel, outside the actor.
///
/// Every method throws `RepositoryError` (SQLite's errors mapped, and `closed` after
/// ``close()``) or `CancellationError` when its task was cancelled before it began.
actor SQLiteDatabase {
    /// The file path or `:memory:`, and the table, for error messages.
    nonisolated let location: String
    private let executor: SQLiteExecutor
    let table: SQLiteTable
    private var connection: SQLiteConnection?
    /// How many IDs one `IN (…)` list holds at most: a power of two within SQLite's limit.
    let maximumChunk: Int

    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    private init(
        connection: sending SQLiteConnection, executor: SQLiteExecutor, table: SQLiteTable, location: String
    ) {
        self.maximumChunk = Self.largestPowerOfTwo(atMost: min(connection.variableLimit, 512))
        self.connection = connection
        self.executor = executor
        self.table = table
        self.location = location
    }

    /// Opens the database file at `path` on a new executor's queue, and prepares `table`.
    static func open(path: String, table: SQLiteTable, options: SQLiteOptions) async throws -> SQLiteDatabase
    {
        let location = "\(path), table \(table.name)"
        let executor = SQLiteExecutor(label: "Repositories.SQLiteRepository \(location)")
        let connection = try await executor.run {
            try Self.openConnection(path: path, table: table, options: options, location: location)
        }
        return SQLiteDatabase(connection: connection, executor: executor, table: table, location: location)
    }

    /// Opens a private in-memory database on the caller's thread (nothing blocks), and
    /// prepares `table`.
    static func openInMemory(table: SQLiteTable, options: SQLiteOptions) throws -> SQLiteDatabase {
        let path = SQLiteConnection.inMemoryPath
        let location = "\(path), table \(table.name)"
        let connection = try openConnection(path: path, table: table, options: options, location: location)
        let executor = SQLiteExecutor(label: "Repositories.SQLiteRepository \(location)")
        return SQLiteDatabase(connection: connection, executor: executor, table: table, location: location)
    }

    /// Opens a connection and readies it, in an order that never writes to a file that is
    /// not a database.
    private static func openConnection(
        path: String, table: SQLiteTable, options: SQLiteOptions, location: String
    ) throws -> SQLiteConnection {
        try mapping(location) {
            let connection = try SQLiteConnection(path: path)
            try connection.setBusyTimeout(milliseconds: options.busyTimeoutMilliseconds)
            // SQLite reads the file only when a statement needs it, so read the header and
            // the schema now, before anything below may write: a file that is not a database
            // (or whose first pages are damaged) then throws with its bytes untouched.
            _ = try connection.integer("SELECT count(*) FROM sqlite_master")
            if path != SQLiteConnection.inMemoryPath {
                // WAL: readers never block the writer nor it them, and a commit is one
                // append (and, with synchronous=FULL, one fsync) of the log.
                _ = try connection.text("PRAGMA journal_mode=WAL")
            }
            try connection.execute("PRAGMA synchronous=\(options.synchronous.pragmaValue)")
            if options.synchronous == .full {
                // On Apple platforms fsync leaves data in the drive's cache; F_FULLFSYNC flushes
                // it. SQLite ignores this pragma elsewhere.
                try connection.execute("PRAGMA fullfsync=ON")
            }
            try connection.execute(table.createTable)
            try checkShape(of: table, on: connection, location: location)
            return connection
        }
    }

    /// Throws unless `table` has exactly the columns this repository writes, so a table of
    /// the same name made by someone else is never misread or overwritten.
    private static func checkShape(
        of table: SQLiteTable, on connection: SQLiteConnection, location: String
    ) throws {
        let columns = try connection.withStatement(table.columns) { statement in
            var names: [String] = []
            while try statement.step() { names.append(statement.text(at: 1) ?? "") }
            return names
        }
        guard Set(columns) == ["seq", "id", "body"] else {
            throw RepositoryError.rejected(
                "The table \(table.name) exists with the columns \(columns), not the (seq, id, body) this repository stores",
                recovery: "Pass another SQLiteOptions.tableName, or open the file this table belongs to")
        }
    }

    // MARK: Reading

    func body(for key: SQLiteKey) throws -> Data? {
        try perform { connection in
            try connection.withStatement(table.selectBody) { statement in
                try statement.bind(key, at: 1)
                return try statement.step() ? statement.data(at: 0) : nil
            }
        }
    }

    /// Every row, in insertion order.
    func allRows() throws -> [SQLiteRow] {
        try perform { connection in
            try connection.withStatement(table.selectAll) { statement in
                var rows: [SQLiteRow] = []
                while try statement.step() { rows.append(Self.row(of: statement)) }
                return rows
            }
        }
    }

    func count() throws -> Int {
        try perform { connection in
            Int(try connection.integer(table.count) ?? 0)
        }
    }

    // MARK: Writing

    /// Inserts the row, or replaces the body of the row with its key (which keeps its `seq`).
    func upsert(_ row: SQLiteRow) throws {
        try perform { connection in
            try upsert(row, on: connection)
        }
    }

    func delete(_ key: SQLiteKey) throws {
        try perform { connection in
            try connection.withStatement(table.deleteOne) { statement in
                try statement.bind(key, at: 1)
                _ = try statement.step()
            }
        }
    }

    func deleteAll() throws {
        try perform { connection in
            try connection.execute(table.deleteAll)
        }
    }

    // MARK: Closing

    /// Closes the connection; later calls throw `closed`. A second call does nothing.
    func close() throws {
        guard let connection else { return }
        self.connection = nil
        try Self.mapping(location) { try connection.close() }
    }

    // MARK: Shared

    /// Runs `body` on the open connection, mapping SQLite's errors.
    ///
    /// - Throws: `CancellationError` when the task was cancelled before the work began;
    ///   `RepositoryError` `closed` after ``close()``.
    func perform<Result>(_ body: (SQLiteConnection) throws -> Result) throws -> Result {
        executor.preconditionOnQueue()
        try Task.checkCancellation()
        guard let connection else { throw RepositoryError.closed(location: location) }
        return try Self.mapping(location) { try body(connection) }
    }

    func upsert(_ row: SQLiteRow, on connection: SQLiteConnection) throws {
        try connection.withStatement(table.upsert) { statement in
            try statement.bind(row.key, at: 1)
            try statement.bindText(row.body, at: 2)
            _ = try statement.step()
        }
    }

    static func row(of statement: SQLiteStatement) -> SQLiteRow {
        // An ID that is neither INTEGER nor TEXT was written by another tool; it is read as
        // text only to name the row if its body fails to decode.
        let key = statement.key(at: 0) ?? .text(statement.text(at: 0) ?? "NULL")
        return SQLiteRow(key: key, body: statement.data(at: 1))
    }

    private static func mapping<Result>(_ location: String, _ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch let error as SQLiteError {
            throw error.repositoryError(location: location)
        }
    }

    private static func largestPowerOfTwo(atMost limit: Int) -> Int {
        var power = 1
        while power * 2 <= limit { power *= 2 }
        return power
    }
}
