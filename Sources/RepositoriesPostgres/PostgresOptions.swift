import Foundation

/// How a ``PostgresRepository`` stores its entities and talks to the server: the table, the
/// pool, the time limits, and the JSON coders.
///
/// ```swift
/// let notes = try await PostgresRepository<Note>(
///     connectionString: "postgresql://app@db.internal/notes?sslmode=verify-full",
///     options: PostgresOptions(tableName: "notes", poolSize: 8))
/// ```
public struct PostgresOptions: Sendable {
    /// The table's name, or `nil` for the entity's type name (such as `Note`), with every
    /// character other than an ASCII letter, digit or underscore replaced by `_`.
    ///
    /// It is quoted as an SQL identifier, so its case is kept. It must be 1 to 55 ASCII
    /// letters, digits and underscores, not starting with a digit, because the change feed's
    /// channel is named after it (`<table>_changes`) and PostgreSQL names stop at 63 bytes.
    /// The table lives in the connection's `search_path`; choose a schema with
    /// `options=-csearch_path=app` in the connection string.
    public var tableName: String?

    /// How many connections run statements at once; 4 by default. Connections open when first
    /// needed and reopen after they are lost. ``PostgresRepository/changes()`` uses one more.
    public var poolSize: Int

    /// How long opening a connection may take before it fails `unavailable`; 10 seconds by
    /// default. A `connect_timeout` in the connection string wins.
    public var connectTimeout: Duration

    /// How long the change feed keeps the tombstone of a deleted ID, or `nil` (the default) to
    /// keep every one.
    ///
    /// When set, the repository prunes older tombstones when it opens, and
    /// ``PostgresRepository/pruneTombstones(olderThan:)`` prunes them when called; a reader
    /// whose cursor is older than a pruned tombstone gets `cursorExpired` and reads everything
    /// again. Choose it longer than a device may stay offline, and longer than any transaction
    /// runs: to tell whether a cursor had a pruned tombstone, the feed compares the newest
    /// pruned one with the oldest transaction running when the cursor was issued, so a cursor
    /// issued while a transaction older than that tombstone still ran is refused too.
    public var tombstoneRetention: Duration?

    /// How long the initializer waits for the server to come up, or `nil` (the default) to
    /// fail at once.
    ///
    /// A service often starts beside its database (a container, a deploy): with a wait, a
    /// server that cannot be reached yet or is still starting (`unavailable`) is tried again,
    /// after waits that double from 100 ms to 2 s, until it answers or the wait is over;
    /// then the initializer throws the last `unavailable`, saying how long it waited. A
    /// refusal (a wrong password, a database that does not exist) is thrown at once.
    /// Cancelling the task ends the wait with `CancellationError`.
    public var startupWait: Duration?

    /// Makes the encoder that turns an entity into the JSON stored in its row, or `nil` (the
    /// default) for the table's own: in a `jsonb` table (what this release creates), dates as
    /// ISO 8601 text in UTC with nine digits of fraction (`2024-05-01T09:30:00.250000000Z`);
    /// in a `bytea` table an earlier release created, `JSONEncoder()` as it was. Called once,
    /// when the repository opens.
    ///
    /// An encoder of your own must write what the decoder reads, and what the table already
    /// holds.
    public var makeEncoder: (@Sendable () -> JSONEncoder)?

    /// Makes the decoder that reads an entity back from its row's JSON, or `nil` (the default)
    /// for the table's own: in a `jsonb` table, ISO 8601 dates with any fraction and any zone
    /// offset; in a `bytea` table, `JSONDecoder()`. Called once, when the repository opens.
    public var makeDecoder: (@Sendable () -> JSONDecoder)?

    /// Whether the repository tells the other instances what it wrote (LISTEN/NOTIFY, read by
    /// their ``PostgresRepository/changes()`` and coherent caches); true by default.
    ///
    /// Writes commit without notifying, in parallel, and a connection of the repository's own
    /// sends the IDs afterwards, one notification for all the commits since the last one, so
    /// notifications do not serialise the writes. Turn them off when no instance listens:
    /// the notifier's connection and its transactions are saved.
    public var notifiesChanges: Bool

    /// Creates options; every argument has the default described on its property.
    public init(
        tableName: String? = nil,
        poolSize: Int = 4,
        connectTimeout: Duration = .seconds(10),
        tombstoneRetention: Duration? = nil,
        startupWait: Duration? = nil,
        notifiesChanges: Bool = true,
        makeEncoder: (@Sendable () -> JSONEncoder)? = nil,
        makeDecoder: (@Sendable () -> JSONDecoder)? = nil
    ) {
        self.tableName = tableName
        self.poolSize = poolSize
        self.connectTimeout = connectTimeout
        self.tombstoneRetention = tombstoneRetention
        self.startupWait = startupWait
        self.notifiesChanges = notifiesChanges
        self.makeEncoder = makeEncoder
        self.makeDecoder = makeDecoder
    }

    /// The connect timeout in whole seconds, at least 1 (libpq reads 0 as "wait forever").
    var connectTimeoutSeconds: Int {
        max(1, Int(connectTimeout.components.seconds))
    }
}
