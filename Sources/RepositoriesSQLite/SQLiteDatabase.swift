import Foundation
import Repositories
import Synchronization

/// The connections behind a ``SQLiteRepository``: one writer, an actor running on its own
/// dispatch queue (``SQLiteExecutor``), and for a database file, read-only connections that
/// serve reads on the callers' threads (``SQLiteReaderPool``).
///
/// Writes wait in a queue (``SQLiteWriteQueue``) and the actor commits them in groups, one
/// transaction for every write waiting at that moment, in arrival order (``submit(_:)``): the
/// writer is never touched by two threads at once, and concurrent writers share a commit and
/// its fsync. Reads of a file take a read-only connection of their own and need
/// no turn on the queue; in memory (where a second connection would be a second database)
/// they take their turn on the writer. Methods take and return only keys and bytes; encoding,
/// decoding and checking rows happen in the callers' tasks, in parallel.
///
/// Every method throws `RepositoryError` (SQLite's errors mapped, and `closed` after
/// ``close()``) or `CancellationError` when its task was cancelled before it began.
actor SQLiteDatabase {
    /// The file path or `:memory:`, and the table, for error messages.
    nonisolated let location: String
    /// The file path, or `:memory:`.
    nonisolated let path: String
    /// The table, its `body` column as the database declares it.
    nonisolated let table: SQLiteTable
    /// The codec of the table's bodies: the one recorded when the table was created.
    nonisolated let codec: EntityCodec
    /// How many IDs one `IN (…)` list holds at most: a power of two within SQLite's limit.
    nonisolated let maximumChunk: Int
    /// How many parameters one statement may bind (``SQLiteConnection/variableLimit``).
    nonisolated let variableLimit: Int
    /// Whether SQLite can run queries on declared fields: the file's text is UTF-8, whose
    /// bytes SQLite's `BINARY` collation orders as `FieldValue` orders text. In a UTF-16
    /// file (one made elsewhere) they run in Swift.
    nonisolated let queriesRunInSQL: Bool
    private let executor: SQLiteExecutor
    /// The writing connection, shared with the siblings (``sibling(table:options:upgrade:)``).
    private let writer: SQLiteWriterSlot
    /// The database whose connections a sibling shares and whose drain commits its writes;
    /// `nil` for the database that opened them.
    private let owner: SQLiteDatabase?
    /// Whether this sibling was closed; its owner's connections may still be open.
    private nonisolated let siblingClosed = Mutex(false)
    /// This sibling's number, never reused in the process (0 for an owner): what a write to
    /// its table names, so closing it refuses its writes and not those of a sibling opened
    /// on the same table later.
    nonisolated let siblingNumber: UInt64
    private static let siblingNumbers = Mutex<UInt64>(0)
    /// The read-only connections of a database file; `nil` in memory.
    private nonisolated let readers: SQLiteReaderPool?
    /// The writes waiting for the writer (see ``submit(_:)``), shared with the siblings.
    private nonisolated let writes: SQLiteWriteQueue

    /// The writer, or `nil` once this database (or, for a sibling, its owner) is closed.
    private var connection: SQLiteConnection? {
        siblingClosed.withLock { $0 } ? nil : writer.connection
    }
    /// How many rows opening brought up from an older entity version.
    nonisolated let upgradedRowCount: Int
    /// How long the change feed remembers deletions.
    nonisolated let tombstoneRetention: SQLiteOptions.TombstoneRetention
    /// Deletions applied since the tombstones were last pruned (see ``pruneTombstonesIfDue(after:)``).
    private var deletionsSincePrune = 0

    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    private init(
        connection: sending SQLiteConnection, readers: SQLiteReaderPool?, executor: SQLiteExecutor,
        table: SQLiteTable, codec: EntityCodec, path: String, upgradedRowCount: Int = 0,
        tombstoneRetention: SQLiteOptions.TombstoneRetention, queriesRunInSQL: Bool = true
    ) {
        self.queriesRunInSQL = queriesRunInSQL
        self.upgradedRowCount = upgradedRowCount
        self.tombstoneRetention = tombstoneRetention
        self.codec = codec
        self.maximumChunk = Self.largestPowerOfTwo(atMost: min(connection.variableLimit, 512))
        self.variableLimit = connection.variableLimit
        self.writer = SQLiteWriterSlot(connection)
        self.owner = nil
        self.siblingNumber = 0
        self.writes = SQLiteWriteQueue()
        self.readers = readers
        self.executor = executor
        self.table = table
        self.path = path
        self.location = Self.location(path: path, table: table)
    }

    /// A sibling of `owner` for `table`: its connections, queue and writes, another table.
    private init(
        sibling table: SQLiteTable, of owner: SQLiteDatabase, codec: EntityCodec, upgradedRowCount: Int
    ) {
        self.queriesRunInSQL = owner.queriesRunInSQL
        self.upgradedRowCount = upgradedRowCount
        // A sibling's table keeps no change log.
        self.tombstoneRetention = .forever
        self.codec = codec
        self.maximumChunk = owner.maximumChunk
        self.variableLimit = owner.variableLimit
        self.writer = owner.writer
        self.owner = owner
        self.siblingNumber = Self.siblingNumbers.withLock { number in
            number += 1
            return number
        }
        self.writes = owner.writes
        self.readers = owner.readers
        self.executor = owner.executor
        self.table = table
        self.path = owner.path
        self.location = Self.location(path: owner.path, table: table)
    }

    /// What error messages name: the file (or `:memory:`) and the table.
    private static func location(path: String, table: SQLiteTable) -> String {
        "\(path), table \(table.name)"
    }

    deinit {
        // The readers close first, so that the writer, released after this, is the last
        // connection and checkpoints the log into the database file. A sibling leaves them to
        // its owner, which it keeps alive.
        if owner == nil { readers?.close() }
    }

    // MARK: Siblings

    /// Throws `closed` when this sibling was closed (its owner's calls say so themselves).
    nonisolated func refuseIfSiblingClosed() throws {
        if siblingClosed.withLock({ $0 }) { throw RepositoryError.closed(location: location) }
    }

    /// Opens `table`, another table of this file, on this database's connections: a sibling
    /// whose writes share this writer's transactions, so one ``SQLiteWrite/together(_:)`` can
    /// write both tables at once (an outbox's records beside the local rows). A new table takes
    /// `options`' codec; rows of an older entity version are upgraded as ``open(path:table:options:canonicalizesKeys:upgrade:)``
    /// does. The sibling keeps no change log and rewrites no keys (its keys were always
    /// written canonical).
    ///
    /// Closing the sibling closes it alone; closing this database closes every sibling too.
    func sibling(table: SQLiteTable, options: SQLiteOptions, upgrade: Upgrade) throws -> SQLiteDatabase {
        let location = Self.location(path: path, table: table)
        let (stored, codec, upgraded) = try perform { connection in
            try connection.transaction(.immediate) { () throws -> (SQLiteTable, EntityCodec, Int) in
                let (stored, identifier) = try Self.prepare(
                    table, options: options, changeLog: false, on: connection, location: location)
                let codec = try options.entityCodec(for: identifier, location: location)
                try stored.refuseNewerVersion(
                    than: upgrade.currentVersion, on: connection, location: location)
                let upgraded = try stored.upgradeRows(
                    to: upgrade.currentVersion, on: connection, location: location
                ) {
                    body, version in try upgrade.reencode(body, version, codec)
                }
                return (stored, codec, upgraded)
            }
        }
        return SQLiteDatabase(sibling: stored, of: self, codec: codec, upgradedRowCount: upgraded)
    }

    // MARK: Opening

    /// Opens the database file at `path` on a new executor's queue, and prepares `table`: an
    /// existing table keeps the codec recorded for it, a new one takes ``SQLiteOptions/codec``.
    ///
    /// - Parameter canonicalizesKeys: whether the table's text keys may be in a spelling
    ///   other than the canonical one (see ``SQLiteKey``), as an earlier version wrote them,
    ///   so opening looks for them and rewrites them. `false` for ID types whose keys are
    ///   always canonical (integers, UUIDs), which then cost nothing.
    /// - Parameter upgrade: the entity version the repository writes, and how to bring a
    ///   row's body written by an older version up to it (see ``SQLiteTable/upgradeRows(to:on:location:reencode:)``).
    static func open(
        path: String, table: SQLiteTable, options: SQLiteOptions, canonicalizesKeys: Bool,
        upgrade: Upgrade = .versionOne
    ) async throws -> SQLiteDatabase {
        let location = Self.location(path: path, table: table)
        let executor = SQLiteExecutor(label: "Repositories.SQLiteRepository \(location)")
        let (opened, codec, prepared): (OpenedFile, EntityCodec, (upgradedRows: Int, isUTF8: Bool)) =
            try await executor.run {
                try mapping(location) {
                    let opened = try openFile(
                        path: path, table: table, options: options, currentVersion: upgrade.currentVersion,
                        location: location)
                    let table = opened.writer.table
                    let codec = try options.entityCodec(for: opened.writer.codec, location: location)
                    let connection = opened.writer.connection
                    // Before anything writes: a newer version's table is refused untouched, also
                    // when the probe could not read the file first.
                    try table.refuseNewerVersion(
                        than: upgrade.currentVersion, on: connection, location: location)
                    if canonicalizesKeys { try table.canonicalizeKeys(on: connection, location: location) }
                    // Before the upgrade, which writes the columns with the rows it rewrites.
                    try table.prepareFields(on: connection, location: location) { body, version in
                        try upgrade.fieldValues(body, version, codec)
                    }
                    let upgraded = try table.upgradeRows(
                        to: upgrade.currentVersion, on: connection, location: location
                    ) { body, version in try upgrade.reencode(body, version, codec) }
                    // After the keys and the rows are brought up to date: a table that had no log
                    // is numbered once, as it now is (one that had one numbered each rewrite).
                    try prepareChangeFeed(of: table, on: connection, options: options, location: location)
                    let isUTF8 = try connection.text("PRAGMA encoding") == "UTF-8"
                    return (opened, codec, (upgraded, isUTF8))
                }
            }
        let readers = opened.readers
        return SQLiteDatabase(
            connection: opened.writer.connection, readers: readers, executor: executor,
            table: opened.writer.table, codec: codec, path: path,
            upgradedRowCount: prepared.upgradedRows,
            tombstoneRetention: options.tombstoneRetention, queriesRunInSQL: prepared.isUTF8)
    }

    /// Makes the table's change log when it has none, and forgets the tombstones the retention
    /// no longer keeps.
    private static func prepareChangeFeed(
        of table: SQLiteTable, on connection: SQLiteConnection, options: SQLiteOptions, location: String
    ) throws {
        try table.prepareChangeLog(on: connection, location: location)
        if options.tombstoneRetention.forgets {
            _ = try table.pruneTombstones(options.tombstoneRetention, now: Date(), on: connection)
        }
    }

    /// The entity version a repository writes, how it re-encodes a row's body written by
    /// an older one, and how it reads a body's declared fields.
    struct Upgrade: Sendable {
        var currentVersion: Int
        /// Decodes a body written by the given version through the migrations with the
        /// table's codec, and encodes the entity again with it, with its declared fields'
        /// values in the table's field order.
        var reencode: @Sendable (Data, Int, EntityCodec) throws -> (Data, [FieldValue])
        /// Decodes a body written by the given version through the migrations with the
        /// table's codec, and returns its declared fields' values in the table's field order.
        var fieldValues: @Sendable (Data, Int, EntityCodec) throws -> [FieldValue]

        /// Version 1, what `Migrations()` is, of an entity that declares no fields: no row is
        /// ever older, and no body has a field to read.
        static let versionOne = Upgrade(currentVersion: 1) { body, _, _ in
            (body, [])
        } fieldValues: { _, _, _ in
            []
        }
    }

    /// Opens a private in-memory database on the caller's thread (nothing blocks), and
    /// prepares `table`.
    static func openInMemory(table: SQLiteTable, options: SQLiteOptions) throws -> SQLiteDatabase {
        let path = SQLiteConnection.inMemoryPath
        let location = Self.location(path: path, table: table)
        let (writer, codec) = try mapping(location) {
            let writer = try openWriter(path: path, table: table, options: options, location: location)
            let codec = try options.entityCodec(for: writer.codec, location: location)
            try prepareChangeFeed(
                of: writer.table, on: writer.connection, options: options, location: location)
            return (writer, codec)
        }
        let executor = SQLiteExecutor(label: "Repositories.SQLiteRepository \(location)")
        return SQLiteDatabase(
            connection: writer.connection, readers: nil, executor: executor, table: writer.table,
            codec: codec, path: path, tombstoneRetention: options.tombstoneRetention)
    }

    /// The writer and the readers of a database file.
    private struct OpenedFile {
        var writer: Writer
        var readers: SQLiteReaderPool
    }

    /// The writing connection, and what it found of the table: how its `body` column is
    /// declared, and its codec.
    private struct Writer {
        var connection: SQLiteConnection
        var table: SQLiteTable
        var codec: EntityCodec.Identifier
    }

    /// Probes an existing file on a read-only connection, then opens the writer.
    ///
    /// SQLite writes to the file when it creates the table or switches it to WAL; a write
    /// into a damaged file could spread the damage, and a table that damage hid would be
    /// created again, empty, and served as the truth. So everything that can be read first
    /// is read on a connection that cannot write at all, and throws with the file untouched.
    private static func openFile(
        path: String, table: SQLiteTable, options: SQLiteOptions, currentVersion: Int, location: String
    ) throws -> OpenedFile {
        let probe = try probe(
            path: path, table: table, options: options, currentVersion: currentVersion, location: location)
        let writer = try openWriter(path: path, table: table, options: options, location: location)
        try probe?.setBusyTimeout(milliseconds: 0)
        return OpenedFile(writer: writer, readers: SQLiteReaderPool(path: path, first: probe))
    }

    /// Reads an existing database file on a read-only connection, which it then hands to the
    /// readers; `nil` when there is no file yet, or when SQLite must write to open it at all.
    ///
    /// - Throws: `corrupted` when the header, the schema or the file's length is damaged,
    ///   or, when opening is about to write, when SQLite's `quick_check` or a row's checksum
    ///   finds damage; `rejected` for a table of another shape or of a codec this release does
    ///   not know; `writtenByNewerVersion` when the table's rows were written by a version
    ///   newer than `currentVersion`.
    private static func probe(
        path: String, table: SQLiteTable, options: SQLiteOptions, currentVersion: Int, location: String
    ) throws -> SQLiteConnection? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        do {
            let connection = try SQLiteConnection(path: path, readOnly: true)
            try connection.setBusyTimeout(milliseconds: options.busyTimeoutMilliseconds)
            try connection.transaction(.deferred) {
                try inspect(
                    connection, table: table, currentVersion: currentVersion, location: location)
            }
            return connection
        } catch let error as SQLiteError where error.code == SQLiteError.readOnly {
            // A hot rollback journal, or a log whose index only a writer may rebuild: SQLite
            // writes to recover them, as any opener would. The writer's own first read, before
            // anything else, then is the probe.
            return nil
        }
    }

    /// Everything opening can learn without writing, inside one read transaction.
    private static func inspect(
        _ connection: SQLiteConnection, table: SQLiteTable, currentVersion: Int, location: String
    ) throws {
        // Reads the header and the schema: a file that is not a database, or whose first
        // pages or schema are damaged, throws here.
        _ = try connection.integer("SELECT count(*) FROM sqlite_master")
        try SQLiteFileHeader.checkLength(of: connection, location: location)
        let presence = try table.presence(on: connection, location: location)
        // Before the writer opens (switching a file to WAL is a write): newer data is refused
        // with the file untouched.
        if case .present(let body) = presence {
            _ = try table.checkedCodec(declaring: body, on: connection, location: location)
            try table.refuseNewerVersion(than: currentVersion, on: connection, location: location)
        }
        let journalMode = try connection.text("PRAGMA journal_mode")?.lowercased()
        guard presence == .missing || journalMode != "wal" else { return }
        // The writer is about to write: read every page first.
        let verdict = try connection.text("PRAGMA quick_check(1)") ?? "no answer"
        guard verdict == "ok" else {
            throw RepositoryError.corrupted(
                "SQLite's check of the file found damage: \(verdict)", location: location)
        }
        if presence != .missing {
            _ = try table.scan(on: connection).verifiedRows(location: location)
        }
    }

    /// Opens the connection that writes and readies it: WAL for a file, the durability
    /// options, the table (created with its codec record when missing, see
    /// ``SQLiteTable/create(with:on:location:)``).
    private static func openWriter(
        path: String, table: SQLiteTable, options: SQLiteOptions, location: String
    ) throws -> Writer {
        let connection = try SQLiteConnection(path: path)
        try connection.setBusyTimeout(milliseconds: options.busyTimeoutMilliseconds)
        try connection.installRowChecksumFunction()
        // SQLite reads the file only when a statement needs it, so read the header and the
        // schema now, before anything below may write: when there was no probe, a file that
        // is not a database (or whose first pages are damaged) still throws untouched.
        _ = try connection.integer("SELECT count(*) FROM sqlite_master")
        if path != SQLiteConnection.inMemoryPath {
            try switchToWAL(connection, waitingUpTo: options.busyTimeout)
        }
        try connection.execute("PRAGMA synchronous=\(options.synchronous.pragmaValue)")
        if options.synchronous == .full {
            // On Apple platforms fsync leaves data in the drive's cache; F_FULLFSYNC flushes
            // it. SQLite ignores this pragma elsewhere.
            try connection.execute("PRAGMA fullfsync=ON")
        }
        let (stored, codec) = try prepare(
            table, options: options, changeLog: true, on: connection, location: location)
        return Writer(connection: connection, table: stored, codec: codec)
    }

    /// Creates `table` when it is missing, with `options`' codec (and a change log when
    /// `changeLog`), and returns it as the file declares its `body` column, with the codec
    /// recorded for it: the step every table takes, a repository's own and a sibling's.
    private static func prepare(
        _ table: SQLiteTable, options: SQLiteOptions, changeLog: Bool, on connection: SQLiteConnection,
        location: String
    ) throws -> (table: SQLiteTable, codec: EntityCodec.Identifier) {
        if try table.presence(on: connection, location: location) == .missing {
            try options.codec.refuseUnlessKnown(in: location)
            try table.create(with: options.codec, changeLog: changeLog, on: connection, location: location)
        }
        guard case .present(let body) = try table.presence(on: connection, location: location) else {
            throw RepositoryError.rejected(
                "The table \(table.name) could not be created",
                recovery: "Pass another SQLiteOptions.tableName")
        }
        let codec = try table.checkedCodec(declaring: body, on: connection, location: location)
        return (try table.storing(body), codec)
    }

    /// Switches the file to WAL: readers never block the writer nor it them, and a commit is
    /// one append (and, with synchronous=FULL, one fsync) of the log.
    ///
    /// The switch reads the header, then takes the write lock; SQLite calls no busy handler
    /// for a lock wanted by a connection that already reads, so when another process holds
    /// the file (several opening a new file at once), the switch fails with `SQLITE_BUSY` at
    /// once, whatever the busy timeout. It is tried again here until `timeout` has passed.
    /// A file already in WAL needs no lock, and answers at once.
    private static func switchToWAL(_ connection: SQLiteConnection, waitingUpTo timeout: Duration) throws {
        let deadline = ContinuousClock.now + timeout
        var pause = Duration.milliseconds(1)
        while true {
            do {
                _ = try connection.text("PRAGMA journal_mode=WAL")
                return
            } catch let error as SQLiteError where error.code == SQLiteError.busy {
                guard ContinuousClock.now + pause < deadline else { throw error }
                // On the executor's own queue, never a thread of the cooperative pool.
                Thread.sleep(forTimeInterval: pause / .seconds(1))
                pause = min(pause * 2, .milliseconds(50))
            }
        }
    }

    // MARK: Reading

    /// Runs `body` on a read-only connection on the caller's thread, or for an in-memory
    /// database (or when a reader meets a lock) on the writer's queue.
    ///
    /// A reader never waits for a lock (see ``SQLiteReaderPool``); when it meets one, the read
    /// runs again on the writer's queue, which waits up to the busy timeout without holding a
    /// thread of the cooperative pool.
    nonisolated func read<Result: Sendable>(
        _ body: @Sendable (SQLiteConnection) throws -> Result
    ) async throws -> Result {
        try refuseIfSiblingClosed()
        if let readers {
            do {
                return try readers.read(body)
            } catch let error as SQLiteError where error.code == SQLiteError.busy {
                // Run again below, where waiting is harmless.
            } catch let error as SQLiteError {
                throw error.repositoryError(location: location)
            } catch is SQLiteReaderPoolClosed {
                throw RepositoryError.closed(location: location)
            }
        }
        return try await perform(body)
    }

    /// The row stored under `key`, unverified.
    nonisolated func storedRow(for key: SQLiteKey) async throws -> SQLiteStoredRow? {
        let table = table
        return try await read { try table.storedRow(for: key, on: $0) }
    }

    /// Every entity in insertion order: each row checked, then decoded by `decode` while the
    /// later rows are still being read (see ``SQLiteDecodingScan``).
    nonisolated func entities<Entity: Sendable>(
        decodedBy decode: @escaping @Sendable (SQLiteRow) throws -> Entity
    ) async throws -> [Entity] {
        let table = table
        let location = location
        return try await read { connection in
            try SQLiteDecodingScan.entities(of: table, on: connection, location: location, decode: decode)
        }
    }

    /// The rows stored under `keys`, unverified, in no particular order.
    nonisolated func storedRows(for keys: [SQLiteKey]) async throws -> [SQLiteStoredRow] {
        let table = table
        let maximumChunk = maximumChunk
        return try await read { try table.storedRows(for: keys, maximumChunk: maximumChunk, on: $0) }
    }

    nonisolated func count() async throws -> Int {
        let table = table
        return try await read { try table.rowCount(on: $0) }
    }

    /// The rows `query` selects, unverified, with their field columns, in its statement's order.
    nonisolated func storedRows(_ query: SQLiteQuery) async throws -> [SQLiteQueryRow] {
        let table = table
        return try await read { try table.storedRows(query, on: $0) }
    }

    /// How many rows meet `query`'s conditions.
    nonisolated func count(_ query: SQLiteQuery) async throws -> Int {
        let table = table
        return try await read { try table.rowCount(query, on: $0) }
    }

    /// SQLite's plan for `query`'s statement (see ``SQLiteTable/plan(of:on:)``).
    nonisolated func plan(of query: SQLiteQuery) async throws -> [String] {
        let table = table
        return try await read { try table.plan(of: query, on: $0) }
    }

    /// Runs `ANALYZE` on the table, on the writer.
    func analyze() throws {
        let table = table
        try perform { try table.analyze(on: $0) }
    }

    /// The change log's entries after `cursor`, at most `limit`, with their rows unverified,
    /// in one read transaction (see ``SQLiteTable/changeEntries(after:limit:on:location:)``).
    nonisolated func changeEntries(after cursor: SQLiteChangeCursor?, limit: Int) async throws
        -> SQLiteChangeEntries
    {
        let table = table
        let location = location
        return try await read {
            try table.changeEntries(after: cursor, limit: limit, on: $0, location: location)
        }
    }

    /// The keys the change log changed after `cursor`, no row read (see
    /// ``SQLiteTable/changedKeys(after:limit:on:location:)``).
    nonisolated func changedKeys(after cursor: SQLiteChangeCursor, limit: Int) async throws
        -> SQLiteChangedKeys
    {
        let table = table
        let location = location
        return try await read {
            try table.changedKeys(after: cursor, limit: limit, on: $0, location: location)
        }
    }

    /// The cursor of the change log's newest change.
    nonisolated func newestCursor() async throws -> SQLiteChangeCursor {
        let table = table
        let location = location
        return try await read { try table.newestCursor(on: $0, location: location) }
    }

    // MARK: Writing

    /// The most writes one group commits together: enough that a crowd of writers shares a
    /// few commits, few enough that one transaction never grows without bound.
    static let largestGroup = 512

    /// Hands `write` to the writer and returns once the transaction holding it has committed
    /// (durably, at `synchronous=FULL`).
    ///
    /// Writes that arrive while the writer commits wait together and share the next
    /// transaction, one `BEGIN IMMEDIATE … COMMIT` and so one fsync (group commit), applied in
    /// arrival order, so a later write to an ID wins. Each write runs inside a savepoint of
    /// its own: a write whose statements fail (a constraint, a trigger) is undone alone and
    /// only its caller hears the error, while the others commit. When the transaction itself
    /// fails (its `BEGIN`, its `COMMIT`, or an error after which SQLite rolls the whole
    /// transaction back, such as a full disk), nothing of the group is applied and every
    /// caller in it gets the error.
    ///
    /// - Throws: `CancellationError`, with nothing applied, when the task is cancelled while
    ///   the write waits for its group; a write taken into a group runs to the end.
    ///   `RepositoryError` otherwise (`closed` after ``close()``).
    nonisolated func submit(_ write: SQLiteWrite) async throws {
        let ticket = writes.ticket()
        // A sibling's write names its table; the owner's drain commits every write.
        let write = owner == nil ? write : .into(table, write, sibling: siblingNumber)
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<Void, any Error>) in
                if writes.enqueue(write, ticket: ticket, continuation: continuation) {
                    Task { await (self.owner ?? self).drainWrites() }
                }
            }
        } onCancel: {
            writes.cancel(ticket)
        }
    }

    /// How many writes wait for a group: for tests that line writes up.
    nonisolated var waitingWriteCount: Int { writes.waitingCount }

    /// Commits the waiting writes group by group, answering each caller after its group's
    /// commit, until none waits. Runs on the writer's queue; writes that arrive meanwhile
    /// form the next group.
    private func drainWrites() {
        while let group = writes.takeGroup(limit: Self.largestGroup) {
            let applied = group.map(\.write)
            let outcomes = commit(applied)
            for (waiting, outcome) in zip(group, outcomes) { waiting.continuation.resume(with: outcome) }
            pruneTombstonesIfDue(after: applied)
        }
    }

    /// What became of one write: applied, or the error its caller gets.
    typealias Outcome = Result<Void, any Error>

    /// Runs `group` in one transaction and returns each write's outcome, in order.
    private func commit(_ group: [SQLiteWrite]) -> [Outcome] {
        executor.preconditionOnQueue()
        guard let connection else {
            return group.map { _ in .failure(RepositoryError.closed(location: location)) }
        }
        do {
            return try Self.mapping(location) {
                // Alone, a write is its own transaction: one statement, or its own BEGIN IMMEDIATE.
                if group.count == 1 {
                    if case .barrier = group[0] { return [.success(())] }
                    do {
                        try group[0].apply(to: table, on: connection, maximumChunk: maximumChunk)
                    } catch {
                        return [.failure(Self.mapped(error, location: location(of: group[0])))]
                    }
                    return [.success(())]
                }
                return try connection.transaction(.immediate) {
                    try group.map { try outcome(of: $0, inGroupOn: connection) }
                }
            }
        } catch {
            return group.map { _ in .failure(error) }
        }
    }

    /// The location an error of `write` names: the table of a sibling's write, else this one's
    /// (a write across tables names every table).
    private func location(of write: SQLiteWrite) -> String {
        let tables = write.tableNames
        guard !tables.isEmpty else { return location }
        let own: [String] = if case .together = write { [table.name] } else { [] }
        return "\(path), table " + (own + tables).joined(separator: " and ")
    }

    /// Applies `write` inside a savepoint of the group's open transaction, and returns its
    /// outcome: a failed write is undone alone. Throws when the group cannot go on: SQLite
    /// rolled the whole transaction back (it does after a full disk or an I/O error), or the
    /// savepoint could not be undone.
    private func outcome(of write: SQLiteWrite, inGroupOn connection: SQLiteConnection) throws -> Outcome {
        try connection.execute("SAVEPOINT repositories_write")
        do {
            try write.apply(to: table, on: connection, maximumChunk: maximumChunk)
            try connection.execute("RELEASE repositories_write")
            return .success(())
        } catch {
            guard connection.isInTransaction else { throw error }
            try connection.execute("ROLLBACK TO repositories_write")
            try connection.execute("RELEASE repositories_write")
            return .failure(Self.mapped(error, location: location(of: write)))
        }
    }

    // MARK: Pruning tombstones

    /// How many deletions pass between two prunes the writer runs on its own.
    static let deletionsBetweenPrunes = 1_024

    /// Forgets the tombstones `retention` (by default the options') no longer keeps, now (see
    /// ``SQLiteTable/pruneTombstones(_:now:on:)``); returns how many.
    func pruneTombstones(_ retention: SQLiteOptions.TombstoneRetention? = nil) throws -> Int {
        let retention = retention ?? tombstoneRetention
        guard retention.forgets else { return 0 }
        let table = table
        deletionsSincePrune = 0
        return try perform { try table.pruneTombstones(retention, now: Date(), on: $0) }
    }

    /// Counts the deletions of `group`, and prunes once ``deletionsBetweenPrunes`` have passed,
    /// after the group's callers have their answers. A prune that fails is left for the next
    /// one: it only frees space, and what it would forget stays readable meanwhile.
    private func pruneTombstonesIfDue(after group: [SQLiteWrite]) {
        guard tombstoneRetention.forgets else { return }
        deletionsSincePrune += group.reduce(0) { $0 + $1.deletionCount }
        guard deletionsSincePrune >= Self.deletionsBetweenPrunes, let connection else { return }
        deletionsSincePrune = 0
        do {
            _ = try table.pruneTombstones(tombstoneRetention, now: Date(), on: connection)
        } catch {
            // No caller waits for this prune; the next one, a thousand deletions on, tries again.
        }
    }

    /// Calls `hook` on the writer's queue as each transaction of the writer commits; a `false`
    /// answer turns that commit into a rollback. A test hook: it counts commits, holds one
    /// open, or makes one fail.
    func setCommitHook(_ hook: @escaping @Sendable () -> Bool) {
        connection?.setCommitHook(hook)
    }

    // MARK: Closing

    /// Closes the readers, then the writer; later calls throw `closed`. A second call does
    /// nothing.
    ///
    /// The writer closes last, so when no other connection has the file open it checkpoints
    /// the log into the database file and removes the `-wal` and `-shm` files.
    func close() async throws {
        if let owner {
            // Refuse the sibling's later writes in the queue's own lock, so none slips in after
            // the barrier below; then wait for the ones already queued to commit (or fail), so
            // nothing of this sibling is written once `close()` has returned.
            siblingClosed.withLock { $0 = true }
            writes.closeSibling(siblingNumber, location: location)
            // Not cancelled with the caller's task: closing must not return before the writes
            // queued earlier are settled. The barrier writes nothing; a closed owner fails it,
            // and then nothing of the queue commits any more.
            _ = await Task { try await owner.submit(.barrier) }.result
            return
        }
        guard let connection = writer.connection else { return }
        writer.connection = nil
        readers?.close()
        try Self.mapping(location) { try connection.close() }
    }

    /// SQLite's `data_version` on the writer: a number that changes when another connection
    /// (another instance, another process) commits to the file, and never for this one's own
    /// commits, which its siblings share.
    func dataVersion() throws -> Int64 {
        try perform { try $0.integer("PRAGMA data_version") ?? 0 }
    }

    // MARK: Shared

    /// Runs `body` on the writer, on its queue, mapping SQLite's errors.
    ///
    /// - Throws: `CancellationError` when the task was cancelled before the work began;
    ///   `RepositoryError` `closed` after ``close()``.
    func perform<Result>(_ body: (SQLiteConnection) throws -> Result) throws -> Result {
        executor.preconditionOnQueue()
        try Task.checkCancellation()
        guard let connection else { throw RepositoryError.closed(location: location) }
        return try Self.mapping(location) { try body(connection) }
    }

    private static func mapping<Result>(_ location: String, _ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch {
            throw mapped(error, location: location)
        }
    }

    /// SQLite's errors as `RepositoryError`; any other error as it is.
    private static func mapped(_ error: any Error, location: String) -> any Error {
        guard let error = error as? SQLiteError else { return error }
        return error.repositoryError(location: location)
    }

    private static func largestPowerOfTwo(atMost limit: Int) -> Int {
        var power = 1
        while power * 2 <= limit { power *= 2 }
        return power
    }
}

/// The writing connection of a database and its siblings, which share it: read and written
/// only on their executor's serial queue (every use is isolated to one of those actors, which
/// all run there), hence unchecked.
private final class SQLiteWriterSlot: @unchecked Sendable {
    var connection: SQLiteConnection?
    init(_ connection: consuming sending SQLiteConnection) { self.connection = connection }
}
