import Foundation
import Repositories
import Synchronization

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
/// | `body` | `jsonb NOT NULL` | the entity as JSON, dates as ISO 8601 text in UTC (`2024-05-01T09:30:00.250000000Z`) |
/// | `version` | `bigint NOT NULL` | 1 when inserted, one more at each replace |
/// | `schema_version` | `integer NOT NULL DEFAULT 1` | the version of the entity (its ``Migrations``) that wrote the row |
///
/// Other programs can read the bodies with SQL (`body->>'sku'`, `(body->>'counted')::timestamptz`),
/// and a DBA may add columns (nullable, defaulted or generated, such as
/// `GENERATED ALWAYS AS (body->>'sku') STORED`), indexes and triggers: the repository checks only
/// its own columns, and refuses to open (`rejected`) only when a column it needs is missing or
/// of another type, or an added column is `NOT NULL` without a default, which its inserts could
/// not fill. The table is never altered beyond adding `schema_version`.
///
/// `jsonb` cannot hold everything Swift's JSON can: a `String` holding U+0000, and the bare
/// `NaN` `JSONEncoder` writes for `Decimal.nan` (a `Double` or `Float` that is NaN or infinite
/// the encoder refuses itself). A save holding one throws `encodingFailed` naming the ID and
/// the field (`tags[1]`), and nothing of that call is written. Dates are written with nine
/// digits of fraction, so every `Date` reads back equal to the one saved, and the texts sort in
/// time order.
///
/// Tables an earlier release created keep their `bytea` body (the JSON's bytes, dates as
/// `JSONEncoder`'s default): the repository reads the column's type when it opens and keeps
/// writing that table as it was written. Such a table keeps U+0000; it refuses `NaN` too.
///
/// ## Migrations
///
/// With ``init(connectionString:options:migrations:)``'s `migrations`, every row carries the
/// version of the entity that wrote it. When a newer version opens the table, it upgrades
/// every older row in one transaction under the table's advisory lock (500 rows at a time,
/// each counted as a write and logged for the change feed), and records its version in the
/// feed's table, so later opens skip the scan. A process killed during the upgrade leaves
/// every row as it was.
///
/// In a rolling deploy, an instance of the older version that is still running refuses what
/// the newer one wrote or upgraded, with `writtenByNewerVersion` naming the ID: a read of
/// the row, a save over it (checked in the write's own statement, so a batch holding one such
/// row writes nothing), and `update(id:_:)`. It can still create rows, which the newer
/// version reads upgraded; an instance of the older version that starts after the upgrade is
/// refused at open. No read-modify-write by an old instance drops a field silently.
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
/// all or nothing; saves made at once from several tasks may share one such statement (see
/// ``save(_:)``); ``fetch(ids:)`` is one `WHERE id = ANY($1)`; ``count()`` one `count(*)`.
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
/// (``save(_:ifMatch:)``, ``saveIfAbsent(_:)``, ``delete(id:ifMatch:)``) and `update(id:_:)`
/// are not sent again blindly: each runs in a transaction whose ID it reads first, and after a
/// lost connection PostgreSQL says whether that transaction committed (`pg_xact_status`).
/// When the new connection fails too, the call throws `unavailable`.
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
/// Once a write has committed, the repository notifies the channel `<table>_changes` with the
/// IDs it changed, from a connection of its own that gathers the commits of a few
/// milliseconds into one notification, so notifying never serialises the writes
/// (``PostgresOptions/notifiesChanges`` turns it off). ``changes()`` turns those
/// notifications into an `AsyncSequence` of ``PostgresChange``, and
/// ``cachedCoherently(in:timeToLive:onTierFailure:onChange:)`` puts a cache in front of the
/// repository that drops what any other connection changed. A writer killed between its
/// commit and its notification sends none; the caches then drop the entity when their time
/// to live ends.
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
/// ## Queries
///
/// Each field the entity declares (`QueryableEntity`) is a typed column of the table with an
/// index (`boolean`, `bigint`, `double precision`, `text COLLATE "C"`, `timestamptz`), written
/// by every statement that writes the row. ``fetch(_:)`` and ``count(_:)`` send conditions,
/// and when no closure follows the order, offset and limit, as one prepared statement, so a
/// list screen's page reads its own rows:
///
/// ```swift
/// let page = try await items.fetch(
///     Query<Item>().where(\.price < 100).sorted(by: \.price, .descending).limit(20))
/// ```
///
/// Opening adds, fills or retypes the columns as the declaration changed, in one transaction
/// under the table's advisory lock. Rows a writer that does not know the columns wrote (an
/// earlier release, SQL of your own, a release that declares other fields) are filled before
/// a query reads them. See Docs/Queries.md, "In PostgreSQL".
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
/// - an entity that cannot be encoded, or holds what `jsonb` cannot keep: `encodingFailed`,
///   naming the ID and the field, and nothing of that call is written; a row that no longer
///   decodes: `decodingFailed`, naming its ID;
/// - a row, or a table, a newer version of the entity wrote: `writtenByNewerVersion`;
/// - any call after ``close()``: `closed`.
///
/// ## Topics
///
/// ### Opening and closing
/// - ``init(connectionString:options:migrations:)``
/// - ``init(parameters:options:migrations:)``
/// - ``close()``
///
/// ### Migrations
/// - ``upgradedRowCount``
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
    let coder: PostgresEntityCoder<Entity>
    /// Sends the notifications of this repository's writes; `nil` when
    /// ``PostgresOptions/notifiesChanges`` is false.
    let notifier: PostgresNotifier?
    /// The pool as a statement runner, announcing through ``notifier``.
    let poolRunner: PostgresPoolRunner
    /// Lets concurrent ``save(_:)`` calls share a statement and a commit.
    let saves: PostgresSaveBatcher
    let upgraded = Mutex(0)

    /// How many rows opening the repository upgraded from an older version of the entity
    /// (see "Migrations"); 0 when the table was already at this version.
    public var upgradedRowCount: Int { upgraded.withLock { $0 } }

    /// Connects with a libpq connection string, and creates the table if it is missing or
    /// checks it if present.
    ///
    /// `connectionString` is either `key=value` pairs (`host=db port=5432 dbname=app user=app
    /// sslmode=require`) or a URI (`postgresql://app@db/app?sslmode=verify-full`); every libpq
    /// parameter works, TLS ones included (`sslmode`, `sslrootcert`, `sslcert`, `sslkey`), and
    /// libpq's environment variables (`PGPASSWORD`, …) fill in what it leaves out.
    ///
    /// With `migrations`, the rows older versions of the entity wrote are upgraded when the
    /// repository opens (see "Migrations").
    ///
    /// - Throws: `RepositoryError`:
    ///   `unavailable` when the server cannot be reached;
    ///   `rejected` when it refuses the connection (credentials, database, TLS), when the
    ///   table name is not allowed, or when a relation of that name exists with another shape
    ///   (it is left as it was);
    ///   `writtenByNewerVersion` when a newer version of the entity has opened the table;
    ///   `decodingFailed` naming the ID when a row to upgrade does not decode (nothing was
    ///   upgraded).
    public convenience init(
        connectionString: String, options: PostgresOptions = PostgresOptions(),
        migrations: Migrations<Entity> = Migrations()
    ) async throws {
        try PostgresConnectionTarget.validate(connectionString)
        var table = try PostgresTable(
            name: options.tableName ?? PostgresTable.defaultName(for: Entity.self),
            integerKeys: PostgresKey.isInteger(ID.self))
        table.schemaVersion = migrations.currentVersion
        table.fields = try PostgresFieldColumn.columns(for: Entity.self)
        let target = PostgresConnectionTarget(
            connectionString: connectionString, connectTimeoutSeconds: options.connectTimeoutSeconds)
        let backends = PostgresBackends()
        let location = "PostgreSQL table \(table.quotedName)"
        let pool = PostgresPool(
            target: target, size: options.poolSize, label: "repositories.postgres.\(table.name)",
            backends: backends, location: location)
        let coder: PostgresEntityCoder<Entity>
        do {
            table = try await PostgresTableSetup(table: table, pool: pool, location: location)
                .prepare(waitingUpTo: options.startupWait)
            coder = PostgresEntityCoder(
                storage: table.storage, options: options, migrations: migrations, location: location,
                declaresFields: !table.fields.isEmpty)
            table = try await PostgresFieldSetup(table: table, pool: pool, coder: coder, location: location)
                .prepare()
        } catch {
            await pool.close()
            throw error
        }
        self.init(
            table: table, options: options, coder: coder, target: target, pool: pool, backends: backends,
            location: location)
        try await pruneTombstones()
        let createKeys = table.createKeys
        try await perform { connection in try connection.execute(script: createKeys) }
        try await upgradeRows()
    }

    /// Connects with libpq parameters (`host`, `port`, `dbname`, `user`, `password`,
    /// `sslmode`, …), and creates the table if it is missing or checks it if present.
    ///
    /// - Throws: as ``init(connectionString:options:migrations:)``.
    public convenience init(
        parameters: [String: String], options: PostgresOptions = PostgresOptions(),
        migrations: Migrations<Entity> = Migrations()
    ) async throws {
        try await self.init(
            connectionString: PostgresConnectionTarget.conninfo(parameters), options: options,
            migrations: migrations)
    }

    private init(
        table: PostgresTable, options: PostgresOptions, coder: PostgresEntityCoder<Entity>,
        target: PostgresConnectionTarget, pool: PostgresPool, backends: PostgresBackends, location: String
    ) {
        self.table = table
        self.options = options
        self.location = location
        self.pool = pool
        self.listener = PostgresListener(
            target: target, channel: table.channel, backends: backends,
            label: "repositories.postgres.\(table.name).changes")
        self.coder = coder
        let notifier =
            options.notifiesChanges ? PostgresNotifier(target: target, table: table, backends: backends) : nil
        self.notifier = notifier
        let poolRunner = PostgresPoolRunner(pool: pool, location: location, notifier: notifier)
        self.poolRunner = poolRunner
        self.saves = PostgresSaveBatcher(runner: poolRunner, table: table, limit: (options.poolSize + 1) / 2)
    }

    deinit {
        listener.stop()
    }

    /// How many `save(_:)` calls wait for a shared statement, and how many callers wait for a
    /// connection of the pool: for this package's tests, which order events around them.
    package var waitingForTheWriter: (saves: Int, connections: Int) {
        (saves.waitingCount, pool.waiterCount)
    }

    /// Closes the connections and ends every ``changes()`` sequence; calls after it throw
    /// `RepositoryError` `closed`, and closing again does nothing. A statement already running
    /// finishes first.
    public func close() async {
        listener.stop()
        // The pool first: no statement starts after it, so what committed before has been
        // announced to the notifier, which sends it before it closes.
        await pool.close()
        await notifier?.close()
    }

    // MARK: Running statements

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
        let (statement, table) = (table.fetch, table)
        let body = try await runner.perform { connection in
            let result = try connection.execute(statement, [PostgresParameter(key)])
            return result.rowCount == 0 ? nil : table.storedBody(in: result, row: 0, column: 0)
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
                (
                    table.key(in: result, row: $0, column: 0),
                    table.storedBody(in: result, row: $0, column: 1)
                        ?? PostgresStoredBody(bytes: [], schemaVersion: 1)
                )
            }
        }
        return try rows.map { try decode($0.1, key: $0.0) }
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
    /// Saves made at once from several tasks share statements and commits: while half the
    /// pool's connections carry saves, the next ones wait and go together, so four writers
    /// commit in fewer, larger transactions (``PostgresSaveBatcher``). Each save still
    /// succeeds or fails on its own. Once its statement is sent, a save runs to its end even
    /// when its task is cancelled.
    ///
    /// - Throws: `RepositoryError` `encodingFailed` (nothing written) when the entity cannot
    ///   be encoded; `unavailable` when the server cannot be reached (the save may or may not
    ///   have been committed if the connection broke after the statement was sent).
    public func save(_ entity: Entity) async throws {
        let (key, body) = try encode(entity)
        try await saves.save(key, body)
    }

    func save(_ entity: Entity, on runner: some PostgresStatementRunner) async throws {
        let (key, body) = try encode(entity)
        try await runner.upsert([(key, body)], into: table)
    }

    /// Removes the entity stored under `id`; removing an absent ID succeeds.
    public func delete(id: ID) async throws {
        try await delete(id: id, on: self)
    }

    func delete(id: ID, on runner: some PostgresStatementRunner) async throws {
        let key = try key(for: id)
        let (statement, table) = (table.delete, table)
        let changed = try await runner.perform { connection in
            table.changedKeys(in: try connection.execute(statement, [PostgresParameter(key)]))
        }
        runner.announce(changed)
    }

    /// Removes every entity of this repository's table, in one statement.
    public func deleteAll() async throws {
        try await deleteAll(on: self)
    }

    func deleteAll(on runner: some PostgresStatementRunner) async throws {
        let statement = table.deleteAll
        let deleted = try await runner.perform { connection in
            try connection.execute(statement, []).bytes(0, 0) == [1]
        }
        if deleted { runner.announceEverything() }
    }

    // MARK: Coding

    func key(for id: ID) throws -> PostgresKey {
        try coder.key(for: id)
    }

    func encode(_ entity: Entity) throws -> (PostgresKey, PostgresEncodedRow) {
        try coder.encode(entity)
    }

    /// `decodingFailed` for the row of `key` (`nil`: a NULL id), named by its ID.
    static func undecodable(_ key: PostgresKey?, location: String, underlying: any Error) -> RepositoryError {
        RepositoryError(
            .decodingFailed, reason: "A row of the table does not decode as \(Entity.self)",
            recovery: "Correct the row with SQL",
            id: key?.description ?? "NULL", location: location, underlying: underlying)
    }

    func decode(_ body: PostgresStoredBody, key: PostgresKey?) throws -> Entity {
        try coder.decode(body.bytes, writtenBy: body.schemaVersion, key: key)
    }
}
