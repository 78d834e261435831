import Foundation
import Repositories

/// A repository in a PostgreSQL table, shared by every app instance that opens it, through
/// the system's libpq: one row per entity, the entity as JSON.
///
/// ```swift
/// let notes = try await PostgresRepository<Note>(
///     connectionString: "postgresql://app:secret@db.internal:5432/notes?sslmode=verify-full")
/// try await notes.save(Note(id: "n1", text: "Buy milk"))
/// let all = try await notes.fetchAll()
///
/// // In every instance: a local cache that learns what the other instances wrote.
/// let cachedNotes = notes.cachedCoherently(in: InMemoryRepository<Cached<Note>>(), timeToLive: .seconds(300))
/// ```
///
/// ## Storage
///
/// Each repository owns one table (named after the entity type unless
/// ``PostgresOptions/tableName`` says otherwise), created with its index when missing, and
/// the change feed's two tables beside it (see "Change feed"):
///
/// | column | type | what it holds |
/// |---|---|---|
/// | `seq` | `bigint GENERATED ALWAYS AS IDENTITY`, indexed | insertion order: a replaced entity keeps it; a deleted then re-saved one gets a new, larger one |
/// | `id` | `bigint` for integer IDs, else `text COLLATE "C"`; the primary key | the entity's ID (strings in NFC, UUIDs as `uuidString`, other IDs as their JSON) |
/// | `body` | `bytea NOT NULL` | the entity as JSON from ``PostgresOptions/makeEncoder`` |
/// | `version` | `bigint NOT NULL` | 1 when inserted, one more at each replace |
///
/// `body` is `bytea` because the JSON of a Swift `String` may hold `\u0000`, which neither
/// `jsonb` nor `text` accepts. A table of that name with another shape (another column, another
/// type, another key) makes the initializer throw `rejected`, naming both shapes; the table is
/// never altered.
///
/// ## Equal IDs
///
/// The repository keeps one entity per ID as the ID type's `==` sees it: string keys are
/// stored in Unicode Normalization Form C, so `"caf\u{E9}"` and `"cafe\u{301}"` reach one row.
///
/// ## Statements and transactions
///
/// Every operation is one prepared statement, so one round trip and one transaction:
/// ``save(contentsOf:)`` and ``delete(ids:)`` send their IDs and bodies as arrays, and are
/// all or nothing; ``fetch(ids:)`` is one `WHERE id = ANY($1)`; ``count()`` one `count(*)`.
/// Once a write returns, PostgreSQL has committed it, with the durability the server is
/// configured for (`synchronous_commit`); a client killed at any moment leaves each write
/// whole or absent.
///
/// ## Connections
///
/// A pool of ``PostgresOptions/poolSize`` connections runs the statements; each connection's
/// blocking libpq calls run on a dispatch queue of its own, never on Swift's cooperative
/// thread pool. Connections open on first use (the initializer opens one, to create and check
/// the table) and reopen after they are lost. A statement whose connection was lost (the
/// server restarted, the backend was terminated) is sent once more on a new connection when
/// it is a read or an idempotent write (an upsert, a delete by ID), which the retry cannot
/// change; at most a replaced row's `version` counts it twice. A conditional write
/// (``save(_:ifMatch:)``, ``saveIfAbsent(_:)``, ``delete(id:ifMatch:)``) is not: the row is
/// read first, and the write counts as done when the row holds it. When the new connection
/// fails too, the call throws `unavailable`.
///
/// ## Versions and lost updates
///
/// Two instances that each read an entity, change it and save it can lose one another's
/// change. The row's `version` is the entity's tag (``fetchTagged(id:)``), a write can be made
/// on it (``save(_:ifMatch:)`` throws `conflict` when the row moved on), and
/// `update(id:_:)` reads, changes and writes on the version, reading again on conflict:
///
/// ```swift
/// try await items.update(id: sku) { $0.stock -= 1 }
/// ```
///
/// Cancelling a task whose statement is running sends PostgreSQL a cancel request
/// (`PQcancel`); the statement stops on the server, its transaction rolls back, and the call
/// throws `CancellationError`.
///
/// ## Changes made elsewhere
///
/// Every write statement notifies the channel `<table>_changes` with the IDs it changed.
/// ``changes()`` turns those notifications into an `AsyncSequence` of ``PostgresChange``,
/// and ``cachedCoherently(in:timeToLive:onTierFailure:onChange:)`` puts a cache in front of
/// the repository that drops what any other connection changed.
///
/// ## Change feed
///
/// The repository is a `ChangeFeedRepository`: ``changes(since:limit:)`` pages through what
/// was saved and deleted after a `SyncCursor`, so a device pulls what changed, not the table.
///
/// ```swift
/// var cursor: SyncCursor? = nil
/// var more = true
/// while more {
///     let page = try await notes.changes(since: cursor, limit: 500)
///     // apply page.saved and page.deleted, then keep page.next
///     cursor = page.next
///     more = page.hasMore
/// }
/// ```
///
/// The feed keeps its data in two tables of its own, so the entity table's shape does not
/// change: `<table>_log`, one row per ID ever written (its writer's transaction ID from
/// `pg_current_xact_id()`, a change number from an identity, a `deleted` flag for
/// tombstones, a timestamp), and `<table>_feed`, one row with the feed's origin (a UUID every
/// cursor names) and the newest pruned transaction. Every write statement upserts the log
/// rows of the IDs it changed in the same statement as the entity rows.
///
/// Transaction IDs and change numbers are taken before commit, so commits come out of their
/// order; a cursor holds a `pg_snapshot` rather than a number, and a page delivers the log
/// rows committed between the cursor's snapshot and the current one, in `(xid, change)`
/// order. A transaction still running when a page is read is delivered by a later page,
/// never passed over, and nothing waits for the server's oldest transaction: a write is in
/// the feed once it commits. A transaction that wrote and is left open on the server (even
/// idle) makes each page scan the log written since it began, so the feed slows but does not
/// stall.
///
/// Tombstones are kept for ``PostgresOptions/tombstoneRetention`` (all of them by default),
/// pruned at open and by ``pruneTombstones(olderThan:)``; a cursor older than a pruned
/// tombstone, or issued by another table's feed, throws `cursorExpired`.
///
/// Opening a table an earlier release created makes the two tables and logs every row, in
/// one transaction under the table's advisory lock. An earlier release still opens the table
/// (it checks only the entity table), but its writes bypass the log: the rows it inserts and
/// deletes reach the feed at this release's next open; its updates only when the ID is
/// written again through this release.
///
/// ## Errors
///
/// Every failure is a `RepositoryError` whose `underlying` error, when PostgreSQL or libpq
/// reported it, is a ``PostgresError`` with the SQLSTATE and the server's message:
///
/// - a server that cannot be reached, is shutting down or ran out of resources (class 08,
///   57, 53): `unavailable`;
/// - wrong credentials, a missing database, a `pg_hba.conf` or TLS refusal, missing
///   privileges, a read-only standby: `rejected`;
/// - a serialization failure or deadlock (40001, 40P01), a constraint someone added
///   (class 23): `conflict`;
/// - an entity that cannot be encoded: `encodingFailed`, and nothing of that call is
///   written; a row that no longer decodes: `decodingFailed`, naming its ID;
/// - any call after ``close()``: `closed`.
///
/// ## Topics
///
/// ### Opening and closing
/// - ``init(connectionString:options:)``
/// - ``init(parameters:options:)``
/// - ``close()``
///
/// ### Versions and transactions
/// - ``fetchTagged(id:)``
/// - ``save(_:ifMatch:)``
/// - ``saveIfAbsent(_:)``
/// - ``delete(id:ifMatch:)``
/// - ``update(id:attempts:_:)``
/// - ``transaction(_:)``
///
/// ### Changes made by other instances
/// - ``changes()``
/// - ``cachedCoherently(in:timeToLive:onTierFailure:onChange:)``
///
/// ### Change feed
/// - ``changes(since:limit:)``
/// - ``pruneTombstones(olderThan:)``
public final class PostgresRepository<Entity: Codable & Identifiable & Sendable>: Repository, Sendable
where Entity.ID: Codable & Sendable {
    /// The type that identifies an entity.
    public typealias ID = Entity.ID

    /// The options the repository was opened with.
    public let options: PostgresOptions
    /// The name of the table that holds the entities, unquoted.
    public var tableName: String { table.name }
    /// The LISTEN/NOTIFY channel its writes notify: `<table>_changes`.
    public var channel: String { table.channel }

    let table: PostgresTable
    let pool: PostgresPool
    let listener: PostgresListener
    let location: String
    private let encoder: JSONEncoder
    private let decoder: JSONDecoder

    /// Connects with a libpq connection string, and creates the table if it is missing or
    /// checks it if present.
    ///
    /// `connectionString` is either `key=value` pairs (`host=db port=5432 dbname=app user=app
    /// sslmode=require`) or a URI (`postgresql://app@db/app?sslmode=verify-full`); every libpq
    /// parameter works, TLS ones included (`sslmode`, `sslrootcert`, `sslcert`, `sslkey`), and
    /// libpq's environment variables (`PGPASSWORD`, …) fill in what it leaves out.
    ///
    /// - Throws: `RepositoryError`:
    ///   `unavailable` when the server cannot be reached;
    ///   `rejected` when it refuses the connection (credentials, database, TLS), when the
    ///   table name is not allowed, or when a relation of that name exists with another shape
    ///   (it is left as it was).
    public convenience init(connectionString: String, options: PostgresOptions = PostgresOptions())
        async throws
    {
        try PostgresConnectionTarget.validate(connectionString)
        let table = try PostgresTable(
            name: options.tableName ?? PostgresTable.defaultName(for: Entity.self),
            integerKeys: PostgresKey.isInteger(ID.self))
        self.init(
            table: table, options: options,
            target: PostgresConnectionTarget(
                connectionString: connectionString, connectTimeoutSeconds: options.connectTimeoutSeconds))
        try await prepareTable(waitingUpTo: options.startupWait)
    }

    /// Connects with libpq parameters (`host`, `port`, `dbname`, `user`, `password`,
    /// `sslmode`, …), and creates the table if it is missing or checks it if present.
    ///
    /// - Throws: as ``init(connectionString:options:)``.
    public convenience init(parameters: [String: String], options: PostgresOptions = PostgresOptions())
        async throws
    {
        try await self.init(connectionString: PostgresConnectionTarget.conninfo(parameters), options: options)
    }

    private init(table: PostgresTable, options: PostgresOptions, target: PostgresConnectionTarget) {
        let backends = PostgresBackends()
        let location = "PostgreSQL table \(table.quotedName)"
        self.table = table
        self.options = options
        self.location = location
        self.pool = PostgresPool(
            target: target, size: options.poolSize, label: "repositories.postgres.\(table.name)",
            backends: backends, location: location)
        self.listener = PostgresListener(
            target: target, channel: table.channel, backends: backends,
            label: "repositories.postgres.\(table.name).changes")
        self.encoder = options.makeEncoder()
        self.decoder = options.makeDecoder()
    }

    deinit {
        listener.stop()
    }

    /// Closes the connections and ends every ``changes()`` sequence; calls after it throw
    /// `RepositoryError` `closed`, and closing again does nothing. A statement already running
    /// finishes first.
    public func close() async {
        listener.stop()
        await pool.close()
    }

    /// ``prepareTable()``, tried again while the server cannot be reached, for up to `wait`
    /// (`nil`: once), with waits that double from 100 ms to 2 s between tries.
    private func prepareTable(waitingUpTo wait: Duration?) async throws {
        guard let wait else { return try await prepareTable() }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: wait)
        var delay = Duration.milliseconds(100)
        while true {
            do {
                return try await prepareTable()
            } catch var error as RepositoryError where error.code == .unavailable {
                let left = clock.now.duration(to: deadline)
                guard left > .zero else {
                    error.reason += ", after waiting \(wait) for it to start"
                    throw error
                }
                try await Task.sleep(for: min(delay, left))
                delay = min(delay * 2, .seconds(2))
            }
        }
    }

    private func prepareTable() async throws {
        let table = self.table
        let found = try await perform { connection in
            try connection.execute(script: table.createScript)
            let result = try connection.query(PostgresTable.describeSQL, [table.quotedName])
            return (0..<result.rowCount).map { row in
                (0..<7).map { result.text(row, $0) ?? "" }
            }
        }
        let kind = found.first?[0] ?? ""
        let columns = found.map { $0[1...].joined(separator: " ") }
        guard kind == "r", columns == table.expectedColumns else {
            let described = found.map { "\($0[1]) \($0[2])" }.joined(separator: ", ")
            throw RepositoryError(
                .rejected,
                reason:
                    "\(table.quotedName) exists with another shape (\(kind == "r" ? "a table" : "relation kind \(kind)") of \(described)), so PostgresRepository cannot keep its entities there; it was left unchanged",
                recovery:
                    "Pass another tableName in PostgresOptions, or move that table aside; the repository needs \(table.expectedShape)",
                location: location)
        }
        try await perform { connection in try connection.execute(script: table.createIndex) }
        try await prepareFeed()
    }

    /// Creates the change feed's tables, or checks the log's shape, logs the rows the log
    /// lacks, and prunes the tombstones older than the options' retention.
    private func prepareFeed() async throws {
        let table = self.table
        let found = try await perform { connection in
            let result = try connection.query(PostgresTable.describeSQL, [table.quotedLog])
            return (0..<result.rowCount).map { row in
                (0..<7).map { result.text(row, $0) ?? "" }
            }
        }
        let columns = found.map { $0[1...].joined(separator: " ") }
        guard found.isEmpty || (found[0][0] == "r" && columns == table.expectedLogColumns) else {
            let described = found.map { "\($0[1]) \($0[2])" }.joined(separator: ", ")
            throw RepositoryError(
                .rejected,
                reason:
                    "\(table.quotedLog) exists with another shape (\(described)), so PostgresRepository cannot keep its change feed there; it was left unchanged",
                recovery:
                    "Pass another tableName in PostgresOptions, or move that table aside; the change log needs \(table.expectedLogShape)",
                location: location)
        }
        try await perform { connection in try connection.execute(script: table.createFeed) }
        try await pruneTombstones()
        try await perform { connection in try connection.execute(script: table.createKeys) }
    }

    // MARK: Running statements

    /// Runs `body` on a pooled connection, once more on a new connection if the first was
    /// lost, and maps failures to `RepositoryError`.
    func perform<Result: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> Result)
        async throws
        -> Result
    {
        try Task.checkCancellation()
        var attempts = 0
        while true {
            attempts += 1
            do {
                return try await pool.run(body)
            } catch let error as PostgresError {
                // A lost connection, or a stray cancel request that hit the statement after the
                // one it was meant for: the statement is idempotent, so it is sent again.
                let lost = error.connectionLost && !error.failedToConnect
                let strayCancel = error.sqlState == PostgresError.queryCanceled && !Task.isCancelled
                if attempts < 2, lost || strayCancel { continue }
                throw error.repositoryError(location: location)
            }
        }
    }

    // MARK: Reading

    /// Returns the entity stored under `id`, or `nil`.
    ///
    /// - Throws: `RepositoryError` `decodingFailed` naming the ID when its row does not decode;
    ///   `unavailable` when the server cannot be reached.
    /// - Complexity: one round trip; a primary-key lookup on the server.
    public func fetch(id: ID) async throws -> Entity? {
        try await fetch(id: id, on: self)
    }

    func fetch(id: ID, on runner: some PostgresStatementRunner) async throws -> Entity? {
        let key = try key(for: id)
        let statement = table.fetch
        let body = try await runner.perform { connection in
            let result = try connection.execute(statement, [PostgresParameter(key)])
            return result.rowCount == 0 ? nil : result.bytes(0, 0)
        }
        return try body.map { try decode($0, key: key) }
    }

    /// Returns every entity in insertion order.
    ///
    /// - Throws: `RepositoryError` `decodingFailed` naming the first row that does not decode;
    ///   never a shortened list.
    /// - Complexity: one round trip; O(*n*) rows.
    public func fetchAll() async throws -> [Entity] {
        try await fetchAll(on: self)
    }

    func fetchAll(on runner: some PostgresStatementRunner) async throws -> [Entity] {
        let (statement, table) = (table.fetchAll, table)
        let rows = try await runner.perform { connection in
            let result = try connection.execute(statement, [])
            return (0..<result.rowCount).map {
                (table.key(in: result, row: $0, column: 0), result.bytes($0, 1) ?? [])
            }
        }
        return try rows.map { try decode($0.1, key: $0.0) }
    }

    /// Validates `query`, reads every entity, then filters, sorts and pages in memory.
    ///
    /// The filter and sort keys are Swift closures, so PostgreSQL cannot run them.
    ///
    /// - Throws: `RepositoryError` `rejected` for a negative offset or limit, before any read.
    public func fetch(_ query: Query<Entity>) async throws -> [Entity] {
        try query.validate()
        return try query.apply(to: await fetchAll(on: self))
    }

    /// Returns how many entities are stored: one `count(*)`, one round trip.
    public func count() async throws -> Int {
        try await count(on: self)
    }

    func count(on runner: some PostgresStatementRunner) async throws -> Int {
        let statement = table.count
        return try await runner.perform { connection in
            let result = try connection.execute(statement, [])
            return Int(result.int64(0, 0) ?? 0)
        }
    }

    // MARK: Writing

    /// Inserts `entity`, or replaces the one stored under its ID, which keeps its place.
    /// Committed when it returns.
    ///
    /// - Throws: `RepositoryError` `encodingFailed` (nothing written) when the entity cannot
    ///   be encoded; `unavailable` when the server cannot be reached (the save may or may not
    ///   have been committed if the connection broke after the statement was sent).
    public func save(_ entity: Entity) async throws {
        try await save(entity, on: self)
    }

    func save(_ entity: Entity, on runner: some PostgresStatementRunner) async throws {
        let (key, body) = try encode(entity)
        let statement = table.upsert
        try await runner.perform { connection in
            _ = try connection.execute(statement, [PostgresParameter(key), PostgresParameter(bytes: body)])
        }
    }

    /// Removes the entity stored under `id`; removing an absent ID succeeds.
    public func delete(id: ID) async throws {
        try await delete(id: id, on: self)
    }

    func delete(id: ID, on runner: some PostgresStatementRunner) async throws {
        let key = try key(for: id)
        let statement = table.delete
        try await runner.perform { connection in
            _ = try connection.execute(statement, [PostgresParameter(key)])
        }
    }

    /// Removes every entity of this repository's table, in one statement.
    public func deleteAll() async throws {
        try await deleteAll(on: self)
    }

    func deleteAll(on runner: some PostgresStatementRunner) async throws {
        let statement = table.deleteAll
        try await runner.perform { connection in
            _ = try connection.execute(statement, [])
        }
    }

    // MARK: Coding

    func key(for id: ID) throws -> PostgresKey {
        do {
            return try PostgresKey(id)
        } catch {
            throw RepositoryError.encodingFailed(id: String(describing: id), underlying: error)
        }
    }

    func encode(_ entity: Entity) throws -> (PostgresKey, [UInt8]) {
        do {
            return (try PostgresKey(entity.id), Array(try encoder.encode(entity)))
        } catch {
            throw RepositoryError.encodingFailed(id: String(describing: entity.id), underlying: error)
        }
    }

    /// `decodingFailed` for the row of `key` (`nil`: a NULL id), named by its ID.
    static func undecodable(_ key: PostgresKey?, location: String, underlying: any Error) -> RepositoryError {
        RepositoryError(
            .decodingFailed, reason: "A row of the table does not decode as \(Entity.self)",
            recovery:
                "Make the fields added since the row was written optional (or give them a default in init(from:)), "
                + "or correct the row with SQL",
            id: key?.description ?? "NULL", location: location, underlying: underlying)
    }

    func decode(_ body: [UInt8], key: PostgresKey?) throws -> Entity {
        do {
            return try decoder.decode(Entity.self, from: Data(body))
        } catch {
            throw Self.undecodable(key, location: location, underlying: error)
        }
    }
}
