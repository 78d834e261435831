import Foundation
import Repositories

/// The change feed's own tables beside one repository table, and the SQL that keeps and reads
/// them: the table's names, quoted, and every statement, built once.
///
/// Each repository table `T` has a log of its own, one row per ID it ever held, in a table
/// the file's other repository tables do not share:
///
/// ```sql
/// CREATE TABLE "repositories_changes_T" (
///     change INTEGER PRIMARY KEY,  -- the ID's latest change number; rises, never reused
///     key NOT NULL UNIQUE,         -- the ID, as the table's id column stores it (SQLiteKey)
///     deleted_at INTEGER           -- NULL: the ID is saved; else a tombstone, the Unix time
/// )                                --   (seconds) of its deletion
/// ```
///
/// and one row in a table the file's repository tables share, made with the log:
///
/// ```sql
/// CREATE TABLE "repositories_change_feeds" (
///     table_name TEXT PRIMARY KEY COLLATE NOCASE,  -- T, as SQLiteOptions.tableName names it
///     origin TEXT NOT NULL,                        -- a random ID: every cursor carries it
///     forgotten_through INTEGER NOT NULL           -- the newest tombstone pruned (0: none)
/// )
/// ```
///
/// Four triggers on `T` keep the log in the statement that writes the row, so in its
/// transaction: an insert or an update gives the row's ID the next number, a delete gives it
/// the next number as a tombstone, and an update that changes the `id` (as the rewrite of a key
/// to its canonical spelling does) first leaves a tombstone for the old key. The next number
/// is one more than the largest in the log, read under the write lock SQLite gives one writer
/// at a time, so numbers commit in the order they were taken: a reader's snapshot holds every
/// number up to its largest, and every later commit comes above it. The newest row is never
/// pruned, so the largest number never goes back.
///
/// Triggers rather than statements of the repository's own: every write to the table is in
/// the log whoever makes it (an earlier release of this package, which knows nothing of the
/// log, another process, the `sqlite3` shell), and an upsert stays one statement. The triggers
/// use SQLite's built-in functions only, so a connection without this package's functions
/// (an earlier release's) runs them too.
///
/// A `table_name` compares without regard to ASCII case, as SQLite compares table names:
/// `Note` and `note` are one table, so they are one log.
struct SQLiteChangeLog: Sendable {
    /// The prefix of every log table's name; a repository table may not take such a name.
    static let logPrefix = "repositories_changes_"
    /// The table of origins and expiry bounds the file's logs share.
    static let feedsTableName = "repositories_change_feeds"

    /// The log table's name, unquoted.
    let logName: String
    /// The log table's name as an SQL identifier.
    let quotedLog: String
    /// The triggers that keep the log: name, unquoted, and the statement that creates it.
    let triggers: [Trigger]

    /// A trigger on the repository table, and its `CREATE TRIGGER` statement, which
    /// `sqlite_master` keeps as it was written.
    struct Trigger: Sendable {
        var name: String
        var sql: String
    }

    let createLog: String
    /// Numbers every row of the repository table, in `seq` order, from 1: SQLite gives a row
    /// inserted without a rowid one more than the largest.
    let backFill: String
    /// `change, key, deleted_at` of the log and `seq, id, body, crc` of the row of its key (or
    /// NULLs), for the changes after `?1`, at most `?2`, in change order.
    let selectPage: String
    /// `change, key` of the changes after `?1`, at most `?2`, in change order: the log alone,
    /// for a reader that wants the IDs (``SQLiteTable/changedKeys(after:limit:on:location:)``).
    let selectKeys: String
    /// `max(change)`: read from the last entry of the log's b-tree.
    let largestChange: String
    let selectFeed: String
    let upsertFeed: String
    let raiseForgottenThrough: String
    let dropLog: String

    static let createFeeds = """
        CREATE TABLE IF NOT EXISTS \(feedsTableName) \
        (table_name TEXT PRIMARY KEY COLLATE NOCASE, origin TEXT NOT NULL, forgotten_through INTEGER NOT NULL)
        """

    /// The log of the table named `tableName` (unquoted), which SQL names `quotedTable`.
    init(tableName: String, quotedTable: String) {
        let logName = Self.logPrefix + tableName
        let log = Self.quoted(logName)
        self.logName = logName
        self.quotedLog = log
        // `(SELECT max(change) …)` alone in its subquery, so SQLite reads it from the end of the
        // b-tree (the min/max optimization does not apply inside a larger expression).
        let next = "ifnull((SELECT max(change) FROM \(log)), 0) + 1"
        let now = "CAST((julianday('now') - 2440587.5) * 86400 AS INTEGER)"
        let saved = """
            INSERT INTO \(log) (change, key, deleted_at) VALUES (\(next), NEW.id, NULL) \
            ON CONFLICT (key) DO UPDATE SET change = excluded.change, deleted_at = NULL;
            """
        let deleted = """
            INSERT INTO \(log) (change, key, deleted_at) VALUES (\(next), OLD.id, \(now)) \
            ON CONFLICT (key) DO UPDATE SET change = excluded.change, deleted_at = excluded.deleted_at;
            """
        func trigger(_ name: String, _ event: String, _ body: String) -> Trigger {
            let name = "repositories_log_\(name)_\(tableName)"
            return Trigger(
                name: name,
                sql: "CREATE TRIGGER \(Self.quoted(name)) AFTER \(event) ON \(quotedTable) \(body)")
        }
        // An update that keeps the key, the common case, runs one statement: the WHEN clauses
        // pick one of the two update triggers before either runs.
        triggers = [
            trigger("insert", "INSERT", "BEGIN \(saved) END"),
            trigger("update", "UPDATE", "WHEN OLD.id IS NEW.id BEGIN \(saved) END"),
            // The old key's tombstone first, so a key rewritten to another spelling of one ID
            // ends saved, under the larger number.
            trigger("rekey", "UPDATE", "WHEN OLD.id IS NOT NEW.id BEGIN \(deleted) \(saved) END"),
            trigger("delete", "DELETE", "BEGIN \(deleted) END"),
        ]
        createLog =
            "CREATE TABLE \(log) (change INTEGER PRIMARY KEY, key NOT NULL UNIQUE, deleted_at INTEGER)"
        backFill = "INSERT INTO \(log) (key, deleted_at) SELECT id, NULL FROM \(quotedTable) ORDER BY seq"
        selectPage = """
            SELECT log.change, log.key, log.deleted_at, entity.seq, entity.id, entity.body, entity.crc \
            FROM \(log) AS log LEFT JOIN \(quotedTable) AS entity ON entity.id = log.key \
            WHERE log.change > ?1 ORDER BY log.change LIMIT ?2
            """
        selectKeys = "SELECT change, key FROM \(log) WHERE change > ?1 ORDER BY change LIMIT ?2"
        largestChange = "SELECT max(change) FROM \(log)"
        selectFeed = "SELECT origin, forgotten_through FROM \(Self.feedsTableName) WHERE table_name = ?1"
        upsertFeed = """
            INSERT INTO \(Self.feedsTableName) (table_name, origin, forgotten_through) VALUES (?1, ?2, 0) \
            ON CONFLICT (table_name) DO UPDATE SET origin = excluded.origin, forgotten_through = 0
            """
        raiseForgottenThrough = """
            UPDATE \(Self.feedsTableName) SET forgotten_through = max(forgotten_through, ?2) WHERE table_name = ?1
            """
        dropLog = "DROP TABLE IF EXISTS \(log)"
    }

    /// The tombstones a prune forgets: those the retention no longer keeps, and never the log's
    /// newest row (`?1`), so the largest number never goes back. `?2` is the retention's bound:
    /// the newest tombstone beyond the count kept, or the latest deletion time forgotten.
    func forgottenTombstones(_ rule: SQLiteOptions.TombstoneRetention.Rule) -> String? {
        switch rule {
        case .forever:
            return nil
        case .newest:
            return "deleted_at IS NOT NULL AND change < ?1 AND change <= ?2"
        case .age:
            return "deleted_at IS NOT NULL AND change < ?1 AND deleted_at <= ?2"
        }
    }

    /// The change number of the newest tombstone beyond the `?1` newest: the bound of
    /// ``forgottenTombstones(_:)`` for a count.
    var newestTombstoneBeyond: String {
        "SELECT change FROM \(quotedLog) WHERE deleted_at IS NOT NULL ORDER BY change DESC LIMIT 1 OFFSET ?1"
    }

    /// `name` as an SQL identifier: in double quotes, inner quotes doubled.
    static func quoted(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

// MARK: - Cursors

/// The point a ``SyncCursor`` of a ``SQLiteRepository`` stands for: the log it came from and
/// the change number it reached.
///
/// The token reads `sqlite:ORIGIN:NUMBER:BOUND`: the origin is the random ID made with the
/// table's log, so a cursor from another file, another table, or the same table after its log
/// was made again (the table dropped and created, or written by an earlier release that kept
/// no log) names another origin and is refused, never misread. The bound is the file's
/// `forgotten_through` when the cursor was issued: a cursor below the bound is still answered
/// when no tombstone was forgotten since it was issued, as in a read from `nil` (which needs
/// no tombstone) after a pruning sent its reader back there.
struct SQLiteChangeCursor: Sendable, Equatable {
    var origin: String
    var number: Int64
    /// The file's `forgotten_through` when the cursor was issued.
    var bound: Int64

    private static let scheme = "sqlite"

    /// The cursor `cursor` stands for.
    ///
    /// - Throws: `cursorExpired` when it is not a token a SQLite repository made.
    init(_ cursor: SyncCursor, location: String) throws {
        let parts = cursor.token.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == Self.scheme, !parts[1].isEmpty, let number = Int64(parts[2]),
            number >= 0, let bound = Int64(parts[3]), bound >= 0
        else {
            throw Self.expired(
                "The cursor \(cursor.token.prefix(80)) was not issued by a SQLiteRepository",
                location: location)
        }
        self.init(origin: String(parts[1]), number: number, bound: bound)
        // Only the spelling this type writes: "07" or "+7" was never issued.
        guard self.cursor == cursor else {
            throw Self.expired(
                "The cursor \(cursor.token.prefix(80)) was not issued by a SQLiteRepository",
                location: location)
        }
    }

    init(origin: String, number: Int64, bound: Int64) {
        self.origin = origin
        self.number = number
        self.bound = bound
    }

    var cursor: SyncCursor { SyncCursor("\(Self.scheme):\(origin):\(number):\(bound)") }

    /// The `cursorExpired` error for `reason`.
    static func expired(_ reason: String, location: String) -> RepositoryError {
        RepositoryError(
            .cursorExpired, reason: reason,
            recovery: "Read the changes from nil (every entity) and keep the new cursor", location: location)
    }
}
