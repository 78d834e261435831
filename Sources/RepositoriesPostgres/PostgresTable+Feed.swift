import Repositories

/// The change feed's tables and statements.
///
/// ```sql
/// CREATE TABLE "Note_feed" (              -- one row
///     origin         uuid NOT NULL,       -- names this feed in its cursors
///     pruned_through xid8 NOT NULL,       -- the newest transaction whose tombstones were pruned
///     schema_version integer NOT NULL DEFAULT 1  -- the newest entity version that opened the table
/// );
/// CREATE TABLE "Note_log" (               -- one row per ID ever written: its latest write
///     id      text COLLATE "C" PRIMARY KEY,                -- as the entity table's id
///     xid     xid8 NOT NULL,                               -- the writing transaction
///     change  bigint GENERATED ALWAYS AS IDENTITY,         -- a new number at each write
///     deleted boolean NOT NULL,                            -- a tombstone
///     at      timestamptz NOT NULL                         -- when it was written
/// );
/// CREATE INDEX "Note_log_xid" ON "Note_log" (xid, change);
/// CREATE INDEX "Note_log_at" ON "Note_log" (at) WHERE deleted;
/// ```
///
/// Every write statement upserts the log row of each ID it changed in the same statement as
/// the entity row, so both commit together. A page holds the log rows whose transaction is
/// visible in the page's snapshot and was not in the cursor's (the rows committed between
/// the two snapshots, whatever order their transactions took their IDs in), ordered by
/// `(xid, change)`; whether the entity exists now, read in the same statement, says saved or
/// deleted.
extension PostgresTable {
    var logName: String { "\(name)_log" }
    var feedName: String { "\(name)_feed" }
    var quotedLog: String { "\"\(logName)\"" }
    var quotedFeed: String { "\"\(feedName)\"" }

    /// The CTE `l` that records the IDs in `w` (a CTE of the changed rows' `id`) in the log:
    /// written by this transaction, saved or deleted, with a new change number.
    func logChanges(deleted: Bool) -> String {
        """
        l AS (INSERT INTO \(quotedLog) (id, xid, deleted, at)
            SELECT id, pg_current_xact_id(), \(deleted), now() FROM w
            ON CONFLICT (id) DO UPDATE SET xid = excluded.xid, change = DEFAULT, deleted = excluded.deleted,
                at = excluded.at)
        """
    }

    /// Creates the feed's tables and indexes when missing, logs every entity row the log
    /// lacks (all of them for a table an earlier release created; those inserted by one
    /// since), and makes a tombstone of every logged row whose entity is gone (deleted by an
    /// earlier release), in one transaction under the table's advisory lock, so no reader
    /// ever sees a log without them.
    var createFeed: String {
        """
        BEGIN;
        SELECT pg_advisory_xact_lock(hashtext('swift-repositories:' || \(literal(name))));
        \(ifMissing(quotedFeed, "CREATE TABLE \(quotedFeed) (origin uuid NOT NULL, pruned_through xid8 NOT NULL)"))
        \(addColumnIfMissing(to: quotedFeed, "schema_version integer NOT NULL DEFAULT 1"))
        INSERT INTO \(quotedFeed) (origin, pruned_through)
            SELECT gen_random_uuid(), '0' WHERE NOT EXISTS (SELECT 1 FROM \(quotedFeed));
        \(ifMissing(quotedLog, """
            CREATE TABLE \(quotedLog) (
                id \(keyType) PRIMARY KEY,
                xid xid8 NOT NULL,
                change bigint GENERATED ALWAYS AS IDENTITY,
                deleted boolean NOT NULL,
                at timestamptz NOT NULL
            )
            """))
        \(ifMissing("\"\(logName)_xid\"", "CREATE INDEX \"\(logName)_xid\" ON \(quotedLog) (xid, change)"))
        \(ifMissing("\"\(logName)_at\"", "CREATE INDEX \"\(logName)_at\" ON \(quotedLog) (at) WHERE deleted"))
        INSERT INTO \(quotedLog) (id, xid, deleted, at)
            SELECT e.id, pg_current_xact_id(), false, now() FROM \(quotedName) e
            WHERE NOT EXISTS (SELECT 1 FROM \(quotedLog) l WHERE l.id = e.id) ORDER BY e.seq
            ON CONFLICT (id) DO NOTHING;
        UPDATE \(quotedLog) l SET xid = pg_current_xact_id(), change = DEFAULT, deleted = true, at = now()
            WHERE NOT l.deleted AND NOT EXISTS (SELECT 1 FROM \(quotedName) e WHERE e.id = l.id);
        COMMIT;
        """
    }

    /// What keeps a change log of shape `shape` from serving as this table's (`nil`: it can),
    /// in a few words: its five columns with their types; other columns only when inserts
    /// can leave them out.
    func logMismatch(_ shape: PostgresTableShape) -> String? {
        guard shape.kind == "r" else { return "relation kind \(shape.kind), not a table" }
        let byName = Dictionary(shape.columns.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let keyType = integerKeys ? "bigint" : "text"
        guard let id = byName["id"], id.type == keyType, id.primaryKey, integerKeys || id.collation == "C"
        else { return "no id \(self.keyType) PRIMARY KEY" }
        let required: [(String, String)] = [
            ("xid", "xid8"), ("deleted", "boolean"), ("at", "timestamp with time zone"),
        ]
        for (name, type) in required where byName[name].map({ $0.type != type || !$0.notNull }) ?? true {
            return "no \(name) \(type) NOT NULL"
        }
        guard let change = byName["change"], change.type == "bigint", change.identity == "a" else {
            return "no change bigint GENERATED ALWAYS AS IDENTITY"
        }
        let own: Set = ["id", "xid", "change", "deleted", "at"]
        if let blocking = shape.columns.first(where: {
            !own.contains($0.name) && $0.notNull && !$0.hasDefault && $0.identity.isEmpty
                && $0.generated.isEmpty
        }) {
            return "\(blocking.name) is NOT NULL without a default"
        }
        return nil
    }

    var expectedLogShape: String {
        "id \(keyType) PRIMARY KEY, xid xid8 NOT NULL, change bigint GENERATED ALWAYS AS IDENTITY, "
            + "deleted boolean NOT NULL, at timestamptz NOT NULL"
    }

    /// One page of the feed, in one statement (one snapshot).
    ///
    /// Parameters: the cursor's snapshot (`text`); the batch's snapshot, or `''` to start a
    /// batch at the current one; the `(xid, change)` after which the page starts (`text`,
    /// `bigint`); the limit. The first row holds the feed's origin, its pruned bound, the
    /// batch's snapshot, the current snapshot's `xmax`, whether the batch goes on after the
    /// page, and (when it does not) whether writes committed after the batch's snapshot;
    /// every row then one log entry (NULL when the page is empty): its ID, `xid`, `change`,
    /// and the entity's body and `schema_version` (NULL: deleted).
    var changesPage: PostgresStatement {
        let high = "coalesce(nullif($2, '')::pg_snapshot, pg_current_snapshot())"
        return statement(
            "changes_page",
            """
            WITH c AS (
                SELECT l.id, l.xid, l.change FROM \(quotedLog) l
                WHERE (l.xid, l.change) > ($3::xid8, $4::bigint) AND l.xid < pg_snapshot_xmax(\(high))
                    AND NOT pg_visible_in_snapshot(l.xid, $1::pg_snapshot)
                    AND pg_visible_in_snapshot(l.xid, \(high))
                ORDER BY l.xid, l.change LIMIT $5 + 1),
            p AS (SELECT * FROM c ORDER BY xid, change LIMIT $5),
            n AS (SELECT count(*) AS n FROM c)
            SELECT f.origin::text, f.pruned_through, \(high)::text, pg_snapshot_xmax(pg_current_snapshot()),
                n.n > $5,
                n.n <= $5 AND (EXISTS (SELECT 1 FROM \(quotedLog) WHERE xid >= pg_snapshot_xmax(\(high)))
                    OR EXISTS (SELECT 1 FROM pg_snapshot_xip(\(high)) AS x(xid)
                        WHERE EXISTS (SELECT 1 FROM \(quotedLog) WHERE xid = x.xid))),
                p.id, p.xid, p.change, e.body, e.schema_version
            FROM (SELECT * FROM \(quotedFeed) LIMIT 1) f CROSS JOIN n LEFT JOIN p ON true
                LEFT JOIN LATERAL (SELECT \(bodyColumns) FROM \(quotedName) WHERE id = p.id) AS e(body, schema_version) ON true
            ORDER BY p.xid, p.change
            """,
            [
                PostgresParameter.text, PostgresParameter.text, PostgresParameter.text,
                PostgresParameter.int8,
                PostgresParameter.int8,
            ])
    }

    /// Deletes the tombstones written at least `$1` (an `interval` as text) ago whose ID is
    /// still absent, and raises the pruned bound to the newest transaction among them.
    /// Returns how many it deleted.
    var pruneTombstones: PostgresStatement {
        statement(
            "prune_tombstones",
            """
            WITH d AS (
                DELETE FROM \(quotedLog) l WHERE l.deleted AND l.at <= now() - $1::interval
                    AND NOT EXISTS (SELECT 1 FROM \(quotedName) e WHERE e.id = l.id)
                RETURNING l.xid),
            u AS (
                UPDATE \(quotedFeed)
                SET pruned_through = greatest(pruned_through, (SELECT xid FROM d ORDER BY xid DESC LIMIT 1))
                WHERE EXISTS (SELECT 1 FROM d))
            SELECT count(*) FROM d
            """,
            [PostgresParameter.text])
    }
}
