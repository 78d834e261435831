import Foundation
import Repositories

/// A durable repository in an SQLite database: one row per entity, the entity encoded by the
/// table's ``codec`` (binary by default, or JSON), in the system's SQLite.
///
/// ```swift
/// let notes = try await SQLiteRepository<Note>(fileURL: documents.appending(path: "notes.sqlite"))
/// try await notes.save(Note(id: "n1", text: "Buy milk"))
/// let all = try await notes.fetchAll()
/// try await notes.close()
/// ```
///
/// ## Storage
///
/// Each repository owns one table (named after the entity type unless
/// ``SQLiteOptions/tableName`` says otherwise) with four columns: `seq`, an INTEGER that
/// keeps insertion order (an upsert keeps it, so a replaced entity keeps its place; a deleted
/// then re-saved entity gets a new, larger one); `id`, the entity's ID as an INTEGER (integer
/// IDs) or TEXT (strings, UUIDs as `uuidString`, any other ID as its JSON); `body`, the
/// entity encoded by the table's ``codec``; and `crc`, a CRC-32 of the other three, written
/// with every insert and upsert. Several repositories may share one file, each with its own
/// table, and each table with its own change log (see "Change feed").
///
/// A new table takes ``SQLiteOptions/codec`` (`binary` unless you say otherwise) and keeps it
/// for life: the file's `repositories_entity_codecs` table records it, and a binary table
/// declares `body` a BLOB, which releases before codecs refuse to open (`rejected`, nothing
/// written) rather than misread. A JSON table stores `body` as TEXT from
/// ``SQLiteOptions/makeEncoder``; a table without a record, as every earlier release wrote,
/// is JSON, and opening it writes no record (it does give the table a change log, once). A
/// codec this release does not know is refused with `rejected`, the file untouched.
///
/// ## Queries
///
/// An entity that declares queryable fields (`QueryableEntity`) has a column for each in its
/// table, after `crc`, named after the field, typed by it and indexed, written with the row
/// (see `Docs/Queries.md`). ``fetch(_:)`` and ``count(_:)`` run a query's conditions, and
/// when nothing runs after them in Swift its order, offset and limit, as one SQL statement
/// on those indexes. Opening adds, fills and indexes the column of a newly declared field,
/// and drops the column of one no longer declared, in one transaction, recorded in the
/// file's `repositories_entity_fields` table; a release before declared fields refuses a
/// table with field columns (`rejected`, nothing written).
///
/// ## Equal IDs
///
/// The repository keeps one entity per ID as the ID type's `==` sees it. Swift's `String`
/// equality is Unicode canonical equivalence (`"caf\u{E9}" == "cafe\u{301}"`) while SQLite
/// compares bytes, so text keys are stored in Unicode Normalization Form C: saving, fetching or
/// deleting under either spelling reaches the same row. The body keeps the ID as the entity
/// was saved. ASCII keys, integer keys and UUIDs are canonical as they are and cost nothing.
///
/// Earlier versions stored a string ID as it was spelled. Opening such a table rewrites any
/// key not in NFC to its canonical spelling, once, in one transaction, keeping each row's
/// place and body. When two rows hold one ID in two spellings, opening throws `conflict`
/// naming them and changes nothing: the table cannot tell which of the two was written last,
/// and merging would silently drop the other.
///
/// ## Schema evolution
///
/// ``init(fileURL:options:migrations:)`` takes the entity's `Migrations`. The version that
/// wrote a table's rows is kept per table, in the file's `repositories_entity_versions`
/// table, rather than per row: every row of an open table is at the current version, since
/// rows are only written at it and opening rewrites older ones, with the stamp, in one
/// transaction; and a stamp column would have changed the table's shape, which earlier
/// releases refuse. A table without a stamp reads as version 1, and opens at version 1
/// without a stamp written. A table written by a newer version is refused with
/// `writtenByNewerVersion` before anything is written, and a row no upgrade reads throws
/// `decodingFailed` naming its ID and version, with no row changed or dropped.
///
/// Every row an upgrade rewrites takes a new change number (see "Change feed"): the entity
/// it decodes to may differ from the one a reader of the feed holds (a field the upgrade
/// filled in), so a reader gets every upgraded entity again with its next pages.
///
/// ## Change feed
///
/// The repository is a `ChangeFeedRepository`: ``changes(since:limit:)`` answers what was
/// saved and deleted after a `SyncCursor` it handed out, so a reader (a device syncing with a
/// server that keeps its data here, a mirror, a search index) pulls what changed rather than
/// everything there is.
///
/// ```swift
/// var cursor: SyncCursor? = nil
/// repeat {
///     let page = try await notes.changes(since: cursor, limit: 500)
///     // apply page.saved and page.deleted, then keep page.next
///     cursor = page.next
/// } while page.hasMore
/// ```
///
/// The feed keeps its data in tables of its own, so the entity table keeps its shape:
///
/// ```sql
/// CREATE TABLE "repositories_changes_Note" (  -- one per repository table
///     change INTEGER PRIMARY KEY,  -- the ID's latest change number: rises, never reused
///     key NOT NULL UNIQUE,         -- the ID, as the table's id column stores it
///     deleted_at INTEGER           -- NULL while the ID is saved; a tombstone's Unix time
/// )
/// CREATE TABLE "repositories_change_feeds" (  -- one per file, a row per table
///     table_name TEXT PRIMARY KEY COLLATE NOCASE,
///     origin TEXT NOT NULL,                -- a random ID made with the log
///     forgotten_through INTEGER NOT NULL   -- the newest tombstone pruned: older cursors expire
/// )
/// ```
///
/// Four triggers on the entity table (`repositories_log_insert_Note`, `…_update_…`,
/// `…_rekey_…` for an update that changes the `id`, and `…_delete_…`) write the log in the
/// statement that writes the row, so in its transaction:
/// every insert, update and delete (a single save or delete, a batch, ``delete(ids:)``, each
/// row ``deleteAll()`` removes, each row an upgrade or a key rewrite changes) gives its ID the
/// next change number, one more than the largest in the log. The `seq` column cannot serve,
/// since an upsert keeps it. SQLite lets one writer in at a time, so numbers commit in the
/// order they are taken: a page never passes a number that a write still running could
/// commit below. Being triggers, they log every write to the table, whoever makes it:
/// another process, the `sqlite3` shell, or an earlier release of this package (which knows
/// nothing of the log). They call SQLite's built-in functions only, so any connection runs
/// them.
///
/// A table without a log (one an earlier release wrote, or one made again without one) gets
/// one when this release opens it: in one transaction, after SQLite's `quick_check` and a
/// check of every row, every row is numbered in `seq` order and the triggers are made. After
/// a crash the file holds the whole log or none, and the next open makes it. An earlier
/// release opens a file with logs as before: it checks its own table's columns and `id`
/// index, which the log leaves as they were, and never looks at the other tables; its writes
/// go through the triggers and into the feed; a table it creates has no log until this
/// release opens it.
///
/// A cursor is `sqlite:ORIGIN:NUMBER`: the origin, a random ID kept with the log, names the
/// file and the table, so a cursor from another file, another table, or this table before
/// its log was made again is refused with `cursorExpired`, never misread; so is one past the
/// log's newest number (from another copy of the file). A copy of the file restored later
/// keeps its origin: a cursor issued after the copy was taken, once the restored file has
/// numbered as many changes again, is the one case the store cannot tell apart.
///
/// The log keeps one row per ID: a deleted ID stays as a tombstone, so a reader learns of
/// the deletion. ``SQLiteOptions/tombstoneRetention`` (every tombstone, by default) says for
/// how long; forgetting one raises the file's `forgotten_through`, and a cursor below it
/// throws `cursorExpired`, whose reader reads everything again from `nil`. Pruning runs on
/// open, after every 1,024 deletions, and on ``pruneTombstones(keeping:)``.
///
/// A page is read in one read transaction: the log's range after the cursor, joined to each
/// ID's row through the `id` index. Each entity's row is checked against its `crc` before it
/// is decoded, as every read is, and each log entry against the table: an entry whose number
/// does not rise, whose key is of neither type, or that says an ID is saved when the table
/// holds no row of it (or deleted when it holds one) throws `corrupted` naming the entry.
///
/// What the feed costs: each write of a row writes a row of the log too, in the same
/// transaction and commit; ``deleteAll()`` deletes row by row, since SQLite skips its
/// truncation for a table with triggers.
///

/// ## Durability
///
/// The database runs in WAL mode with `synchronous=FULL` by default: once `save`, `delete`
/// or any other write returns, it is in the write-ahead log on disk, and survives `kill -9`
/// of the process and a power failure. ``SQLiteOptions/Synchronous`` says what the relaxed
/// modes risk. A batch (``save(contentsOf:)``, a long ``delete(ids:)``) is one transaction:
/// after a crash it is there whole or not at all. ``close()`` checkpoints the log into the
/// database file.
///
/// ## Damage
///
/// SQLite checks the structure of its pages but keeps no checksum of their content, so a
/// flipped bit inside a row would be served as different data. This repository checks what
/// SQLite does not, and a read of a damaged file throws `corrupted`; it never answers with
/// other data or fewer entities:
///
/// - every row read (``fetch(id:)``, ``fetch(ids:)``, ``fetchAll()`` and the queries built on
///   it) is checked against its `crc` before its body is decoded; the error names the row's
///   `seq` and ID, never its content;
/// - ``fetchAll()`` also counts the `id` index in the same read transaction and checks the
///   rows' `seq`s rise, so a damaged page that makes SQLite skip or repeat rows is caught;
/// - opening compares the file's length with the page count in its header, which SQLite does
///   only in whole pages, so a file cut short anywhere is caught.
///
/// Opening reads an existing file on a read-only connection first (the header, the schema,
/// the table's shape and the file's length) and throws with the file untouched. When opening
/// must write (to create the table, to switch the file to WAL, or to make a table's change
/// log), it first runs SQLite's `quick_check`, and checks the existing rows, since a write
/// into a damaged file could spread the damage, and a table that damage hid from the schema
/// would be created again, empty.
///
/// One kind of damage reads cannot see: a changed entry inside the `id` index makes lookups
/// by that ID (``fetch(id:)``, ``fetch(ids:)``) miss the row, while ``fetchAll()`` and
/// ``count()`` stay exact. `PRAGMA integrity_check` finds it; ``fetchAll()`` never depends on
/// the index for its rows.
///
/// ## Concurrency
///
/// Writes go through one connection, driven by an actor that runs on its own serial dispatch
/// queue, as SQLite serializes writers anyway. One writing connection keeps its prepared
/// statements warm and never races itself, and its blocking calls (an fsync per commit, a
/// busy wait on another connection's lock) run on that queue rather than on Swift's
/// cooperative thread pool, where a blocked thread would stall unrelated tasks.
///
/// Concurrent writes share commits (group commit): the writer takes every write waiting at
/// that moment and commits them, in arrival order, in one `BEGIN IMMEDIATE … COMMIT`, so eight
/// writers pay for far fewer than eight fsyncs. Each write still returns only once the
/// transaction holding it has committed, so the durability promise above holds for every
/// one; a later write of an ID wins. Each write of a group runs in a savepoint: one that
/// SQLite refuses (a constraint, a trigger) fails alone and the others commit, while a
/// failed `BEGIN` or `COMMIT` (or an error that ends the transaction, such as a full disk)
/// fails every write of the group, with none of them applied. A write alone is its own
/// transaction, as without group commit.
///
/// Reads of a file run on the caller's thread, on read-only connections of their own (one per
/// read running at that moment, kept for reuse), and never wait for the writer's queue. WAL is
/// what makes that safe: a reader reads the last commit, and a writer appends beside it, so
/// neither waits for the other, and the caller's thread is held only for the read itself. Each
/// read runs in its own read transaction, started after any write that has returned, so a read
/// always sees every write that returned before it began. A reader that meets a lock (in WAL
/// mode only in passing, while another connection recovers the log after a crash) gives the
/// read to the writer's queue, which waits up to ``SQLiteOptions/busyTimeout`` without
/// holding a thread of the cooperative pool. An in-memory repository reads on its one
/// connection, on the queue, since a second connection would open a second database.
///
/// Encoding, decoding and checking rows happen in the callers' tasks, in parallel; a
/// ``fetchAll()`` of more than 1,024 rows hands each batch of 1,024 to a worker as soon as
/// SQLite has read it, so checking and decoding run on every processor while the later rows
/// are still being read.
///
/// Other connections to the same file (another repository instance, another process, such
/// as an app's extension) work beside it: WAL lets readers run while one writer writes, and
/// a writer waits up to ``SQLiteOptions/busyTimeout`` for another's lock, then throws
/// `RepositoryError` `locked`; opening waits the same way, at every step. Every process's
/// returned saves survive any of them being killed. A read sees what every process
/// committed before it began. A process hears the others' writes through
/// ``committedChanges(checkingEvery:)`` (and `observed(following:)` over it); observation and
/// caches otherwise hear their own instance only. Never open, read or copy the database's files
/// yourself while a repository in the process has them open: closing that descriptor drops
/// the process's SQLite locks, and another process may then remove the log still in use.
///
/// A task cancelled before its operation starts (for a write: while it waits for its group's
/// transaction) throws `CancellationError`, and the write is not applied; once an operation
/// has started it runs to the end, so a cancelled batch is saved whole or not at all.
///
/// ## Errors
///
/// Every failure is a `RepositoryError` whose `underlying` error, when SQLite reported it,
/// is an ``SQLiteError`` with SQLite's extended result code, message and SQL:
///
/// - another connection holding the database past the busy timeout: `locked`;
/// - a damaged database, or a file that is not one: `corrupted`, from the initializer when
///   the header, schema or length is damaged (the file is left byte-for-byte as it was), or
///   from the read that meets a damaged page or row (see "Damage");
/// - an entity that cannot be encoded (a non-finite `Double`): `encodingFailed`, and nothing
///   of that call is written;
/// - a row whose body no longer decodes (the model changed): `decodingFailed`, naming the
///   row's ID; never an empty or shortened answer;
/// - a constraint or trigger refusing a write: `conflict`; a read-only file: `rejected`;
///   an I/O error or a full disk: `unavailable`;
/// - any call after ``close()``: `closed`.
///
/// ## Topics
///
/// ### Opening and closing
/// - ``init(fileURL:options:)``
/// - ``init(fileURL:options:migrations:)``
/// - ``migrations``
/// - ``upgradedRowCount``
/// - ``codec``
/// - ``inMemory(options:)``
/// - ``close()``
///
/// ### Change feed
/// - ``changes(since:limit:)``
/// - ``pruneTombstones(keeping:)``
/// - ``committedChanges(checkingEvery:)``
public final class SQLiteRepository<Entity: Codable & Identifiable & Sendable>: Repository, Sendable
where Entity.ID: Codable & Sendable {
    /// The type that identifies an entity.
    public typealias ID = Entity.ID

    /// The database file, or `nil` for a repository made by ``inMemory(options:)``.
    public let fileURL: URL?
    /// The options the repository was opened with.
    public let options: SQLiteOptions
    /// The name of the table that holds the entities, unquoted.
    public var tableName: String { database.table.name }
    /// The entity's version and its upgrades, as the repository was opened with them:
    /// `Migrations()`, version 1, unless ``init(fileURL:options:migrations:)`` was given others.
    public let migrations: Migrations<Entity>
    /// How many rows opening brought up from an older version of the entity: 0 when the table
    /// was already at `Migrations.currentVersion`, as it is on every open after the first.
    public var upgradedRowCount: Int { database.upgradedRowCount }
    /// The codec the table's entities are encoded with, recorded in the database: the one
    /// ``SQLiteOptions/codec`` named when the table was created (JSON for tables written
    /// before codecs existed).
    public var codec: EntityCodec { database.codec }

    let database: SQLiteDatabase
    /// The task that follows the change log for ``committedChanges(checkingEvery:)``.
    let commits: SQLiteCommitFollower<Entity>
    /// The fields `Entity` declares, in the order of the table's field columns.
    let fields: [QueryableField<Entity>]

    /// Opens the database at `fileURL`, creating the file and the table when they do not exist.
    ///
    /// An empty file (zero bytes) is taken as a new database, as SQLite takes it: it is what
    /// a process killed between creating the file and its first write leaves behind, and it
    /// holds no data to lose.
    ///
    /// - Throws: `RepositoryError`:
    ///   `corrupted` when the file is not an SQLite database, when its header, schema or
    ///   length is damaged, or (when opening must write) when SQLite's `quick_check` or a
    ///   row's checksum finds damage; the database file is left byte-for-byte as it was;
    ///   `rejected` when `fileURL` is not a file URL, names a directory, when the table
    ///   name is not allowed, or when a table of that name exists with other columns
    ///   (including one an earlier version made, without the `crc` column), or when the
    ///   table's recorded codec is one this release does not know (the file untouched);
    ///   `unavailable` when the file cannot be opened (a missing directory, no permission);
    ///   `locked` when another connection holds the database past the busy timeout;
    ///   `conflict` naming the IDs, with nothing changed, when an earlier version stored one
    ///   ID in two Unicode spellings as two rows (see "Equal IDs").
    public convenience init(fileURL: URL, options: SQLiteOptions = SQLiteOptions()) async throws {
        try await self.init(fileURL: fileURL, options: options, migrations: Migrations())
    }

    /// Opens the database at `fileURL` as ``init(fileURL:options:)`` does, reading rows
    /// written by older versions of the entity through `migrations`.
    ///
    /// The table is stamped with the entity version that wrote its rows (see "Schema
    /// evolution"); a table without a stamp, as every earlier release wrote, reads as
    /// version 1. Opening a table of an older version decodes each row as that version's
    /// shape, runs it up the chain, and rewrites every row at `Migrations.currentVersion`
    /// together with the new stamp, in one transaction, before the repository is returned;
    /// ``upgradedRowCount`` says how many rows it upgraded. The next open upgrades nothing.
    ///
    /// - Parameters:
    ///   - fileURL: the database file; created with the table when it does not exist.
    ///   - options: the table name, durability, the codec of a new table, the JSON coders
    ///     (old shapes are decoded with the table's codec).
    ///   - migrations: the entity's version and the upgrades from each older one.
    /// - Throws: what ``init(fileURL:options:)`` throws, and `RepositoryError`
    ///   `writtenByNewerVersion` when the table was written by a newer version of the entity
    ///   than `migrations` know, with the database file untouched; `decodingFailed` naming the
    ///   row's ID and the version that wrote it when no upgrade reads it, with every row left
    ///   as it was.
    public convenience init(
        fileURL: URL, options: SQLiteOptions = SQLiteOptions(), migrations: Migrations<Entity>
    ) async throws {
        let path = try Self.databasePath(of: fileURL)
        let table = try Self.table(options: options)
        let database = try await SQLiteDatabase.open(
            path: path, table: table, options: options,
            canonicalizesKeys: !SQLiteKey.isAlwaysCanonical(ID.self), upgrade: Self.upgrade(migrations))
        self.init(database: database, fileURL: fileURL, options: options, migrations: migrations)
    }

    /// A repository of the table `tableName` in `owner`'s database, on `owner`'s connections
    /// (``SQLiteDatabase/sibling(table:options:upgrade:)``): its writes can join `owner`'s in
    /// one transaction. Closing it leaves `owner` open; closing `owner` closes it.
    convenience init<Owner>(
        beside owner: SQLiteRepository<Owner>, tableName: String, migrations: Migrations<Entity>
    ) async throws {
        var options = owner.options
        options.tableName = tableName
        let table = try Self.table(options: options)
        let database = try await owner.database.sibling(
            table: table, options: options, upgrade: Self.upgrade(migrations))
        self.init(database: database, fileURL: owner.fileURL, options: options, migrations: migrations)
    }

    /// How opening brings a row written by an older version of the entity up to the current one.
    private static func upgrade(_ migrations: Migrations<Entity>) -> SQLiteDatabase.Upgrade {
        let fields = Self.declaredFields
        return SQLiteDatabase.Upgrade(currentVersion: migrations.currentVersion) {
            body, version, codec in
            let entity = try migrations.decode(body, writtenBy: version, using: codec)
            let upgraded = Data(try codec.encode(entity))
            return (upgraded, try Self.fieldValues(of: fields, inBody: upgraded, codec: codec))
        } fieldValues: { body, version, codec in
            let entity = try migrations.decode(body, writtenBy: version, using: codec)
            return fields.map { $0.value(entity) }
        }
    }

    /// Opens a private in-memory database: the same SQL, no file, nothing kept after the
    /// repository is released. Each call makes a new, empty database.
    ///
    /// For tests and previews; use ``init(fileURL:options:)`` for data that must last.
    ///
    /// - Throws: `RepositoryError` `rejected` when the table name is not allowed.
    public static func inMemory(options: SQLiteOptions = SQLiteOptions()) throws -> SQLiteRepository {
        let database = try SQLiteDatabase.openInMemory(table: try table(options: options), options: options)
        return SQLiteRepository(database: database, fileURL: nil, options: options, migrations: Migrations())
    }

    /// The table the options name (the entity type's name by default), with a column for each
    /// field the entity declares.
    ///
    /// - Throws: `rejected` for a table name that is not allowed, or a declaration of fields
    ///   that breaks the rules (see ``SQLiteFieldColumn/columns(for:)``).
    private static func table(options: SQLiteOptions) throws -> SQLiteTable {
        try SQLiteTable(
            name: options.tableName ?? SQLiteTable.defaultName(for: Entity.self),
            fields: SQLiteFieldColumn.columns(for: Entity.self))
    }

    /// The values of `fields` in the entity `body` decodes to; none, without decoding, when
    /// there are no fields.
    static func fieldValues(
        of fields: [QueryableField<Entity>], inBody body: Data, codec: EntityCodec
    ) throws -> [FieldValue] {
        guard !fields.isEmpty else { return [] }
        let stored = try codec.decode(Entity.self, from: body)
        return fields.map { $0.value(stored) }
    }

    /// The fields `Entity` declares, in the order of the table's field columns; none when it
    /// is not a `QueryableEntity`.
    static var declaredFields: [QueryableField<Entity>] { DeclaredFields.of(Entity.self) ?? [] }

    private init(
        database: SQLiteDatabase, fileURL: URL?, options: SQLiteOptions, migrations: Migrations<Entity>
    ) {
        self.database = database
        self.commits = SQLiteCommitFollower(database: database)
        self.fields = Self.declaredFields
        self.migrations = migrations
        self.fileURL = fileURL
        self.options = options
    }

    /// Closes the connections, checkpointing the write-ahead log into the database file and
    /// removing the `-wal` and `-shm` files when no other connection has the file open. Calls
    /// after it throw `RepositoryError` `closed`; closing again does nothing. A read still
    /// running when it is called finishes first on its own connection.
    ///
    /// Releasing the repository without closing it closes the connection too; `close()`
    /// makes the moment explicit, as before reopening or deleting the file.
    ///
    /// - Throws: `RepositoryError` when SQLite reports an error while closing; the
    ///   connection is released all the same.
    public func close() async throws {
        // The change streams end now, not at their next check.
        commits.finishAll()
        try await database.close()
    }

    // MARK: Reading

    /// Returns the entity stored under `id`, or `nil`.
    ///
    /// - Throws: `RepositoryError` `corrupted` naming the ID when its row fails its checksum
    ///   (or the `id` index leads to another row); `decodingFailed` naming the ID when its
    ///   row does not decode.
    /// - Complexity: O(log *n*): one lookup in the `id` index.
    public func fetch(id: ID) async throws -> Entity? {
        try Task.checkCancellation()
        let key = try key(for: id)
        guard let stored = try await database.storedRow(for: key) else { return nil }
        let row = try stored.verified(location: database.location)
        guard row.key == key else {
            throw stored.damage(
                "the ID index leads the ID \(SQLiteStoredRow.describe(key)) to it",
                location: database.location)
        }
        return try decode(row)
    }

    /// Returns every entity in insertion order.
    ///
    /// - Throws: `RepositoryError` `corrupted` when a row fails its checksum or the table's
    ///   rows and its `id` index disagree; `decodingFailed` naming the first row that does
    ///   not decode. Never a shortened list.
    /// - Complexity: O(*n*): one scan of the table in `seq` order, one count of the `id`
    ///   index; the rows are checked and decoded in batches of 1,024 on every processor
    ///   while the later rows are still being read.
    public func fetchAll() async throws -> [Entity] {
        try Task.checkCancellation()
        return try await database.entities { try self.decode($0) }
    }

    /// Returns how many entities are stored, counted by SQLite on the `id` index without
    /// reading any row.
    public func count() async throws -> Int {
        try Task.checkCancellation()
        return try await database.count()
    }

    // MARK: Writing

    /// Inserts `entity`, or replaces the one stored under its ID, which keeps its place.
    /// Durable when it returns (with the default ``SQLiteOptions/Synchronous/full``): saves
    /// from several tasks at once share a transaction and its fsync (see "Concurrency").
    ///
    /// - Throws: `RepositoryError` `encodingFailed` (nothing written) when the entity cannot
    ///   be encoded; `locked` when another connection holds the database past the busy timeout.
    public func save(_ entity: Entity) async throws {
        try Task.checkCancellation()
        try await database.submit(.upsert(encode(entity)))
    }

    /// Removes the entity stored under `id`; removing an absent ID succeeds.
    public func delete(id: ID) async throws {
        try Task.checkCancellation()
        try await database.submit(.deleteOne(key(for: id)))
    }

    /// Removes every entity of this repository's table, in one statement.
    public func deleteAll() async throws {
        try await database.submit(.deleteAll)
    }

    // MARK: Coding

    func key(for id: ID) throws -> SQLiteKey {
        do {
            return try SQLiteKey(id)
        } catch {
            throw RepositoryError.encodingFailed(id: String(describing: id), underlying: error)
        }
    }

    /// The row of `entity`: its key, its body, and its declared fields' values as the body
    /// decodes them, so the columns say what every read of the row says even when the codec
    /// does not keep a value exactly (a JSON date in seconds, a property it skips).
    func encode(_ entity: Entity) throws -> SQLiteRow {
        do {
            let body = Data(try database.codec.encode(entity))
            return SQLiteRow(
                key: try SQLiteKey(entity.id), body: body,
                fields: try Self.fieldValues(of: fields, inBody: body, codec: database.codec))
        } catch {
            throw RepositoryError.encodingFailed(id: String(describing: entity.id), underlying: error)
        }
    }

    /// The entity in `row`'s body, decoded by the table's codec: every read decodes here.
    func decode(_ row: SQLiteRow) throws -> Entity {
        do {
            return try database.codec.decode(Entity.self, from: row.body)
        } catch {
            throw RepositoryError.decodingFailed(
                record: row.key.description, location: database.location, underlying: error)
        }
    }

    private static func databasePath(of fileURL: URL) throws -> String {
        guard fileURL.isFileURL else {
            throw RepositoryError.rejected(
                "\(fileURL) is not a file URL, so SQLite cannot open it",
                recovery: "Pass a file URL, such as URL(filePath: \"/path/to/store.sqlite\")")
        }
        let path = fileURL.path(percentEncoded: false)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw RepositoryError.rejected(
                "\(path) is a directory, not a database file",
                recovery: "Pass the URL of a file, such as the directory's URL appending \"store.sqlite\"")
        }
        return path
    }
}
