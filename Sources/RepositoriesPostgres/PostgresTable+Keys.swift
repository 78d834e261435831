import Repositories

/// The idempotency keys' table and the keyed write statements
/// (``PostgresRepository/apply(_:idempotencyKey:fingerprint:)``).
///
/// ```sql
/// CREATE TABLE "Note_keys" (
///     key         text PRIMARY KEY,   -- the client's Idempotency-Key
///     fingerprint text NOT NULL,      -- the request it came with ("PUT /notes/5")
///     outcome     text NOT NULL,      -- created, replaced, deleted, absent, alreadyExists
///     body        bytea,              -- the entity as stored, for a save or create
///     at          timestamptz NOT NULL
/// );
/// ```
///
/// Each keyed write is one statement: it writes the entity row only when the key is new
/// (as the statement's snapshot sees it), logs the change for the feed, and inserts the key
/// with what the write did, so all three commit together. Two requests with one new key at
/// once: the second's key insert violates the primary key and its whole statement rolls
/// back; sent again, it finds the key and answers from it.
extension PostgresTable {
    var keysName: String { "\(name)_keys" }
    var quotedKeys: String { "\"\(keysName)\"" }

    /// Creates the keys' table when missing, under the table's advisory lock, so two
    /// services starting at once do not race to create it.
    var createKeys: String {
        """
        BEGIN;
        SELECT pg_advisory_xact_lock(hashtext('swift-repositories:' || \(literal(name))));
        \(ifMissing(quotedKeys, """
            CREATE TABLE \(quotedKeys) (
                key text COLLATE "C" PRIMARY KEY, fingerprint text NOT NULL, outcome text NOT NULL, body bytea,
                at timestamptz NOT NULL)
            """))
        \(ifMissing("\"\(keysName)_at\"", "CREATE INDEX \"\(keysName)_at\" ON \(quotedKeys) (at)"))
        COMMIT;
        """
    }

    /// The statement's tail: inserts the key with the outcome `outcome` (an SQL expression
    /// over the CTEs) when it was new, then answers the new outcome, or the key's record
    /// (fingerprint, outcome, body) as the snapshot had it, and how many rows it changed.
    private func keyedTail(outcome: String, body: String) -> String {
        """
        k AS (INSERT INTO \(quotedKeys) (key, fingerprint, outcome, body, at)
            SELECT $2, $3, \(outcome), \(body), now() WHERE (SELECT yes FROM fresh) RETURNING outcome)
        SELECT (SELECT outcome FROM k), r.fingerprint, r.outcome, r.body, (SELECT count(*) FROM w)
        FROM (SELECT 1) AS one LEFT JOIN \(quotedKeys) r ON r.key = $2
        """
    }

    private var fresh: String {
        "fresh AS (SELECT NOT EXISTS (SELECT 1 FROM \(quotedKeys) WHERE key = $2) AS yes)"
    }

    private var prior: String {
        "prior AS (SELECT EXISTS (SELECT 1 FROM \(quotedName) WHERE id = $1) AS yes)"
    }

    /// `$1` id, `$2` key, `$3` fingerprint, `$4` body, `$5`… the fields: a save under a key.
    var keyedSave: PostgresStatement {
        statement(
            "keyed_save",
            """
            WITH \(fresh), \(prior),
            w AS (INSERT INTO \(quotedName) (id, body, version, schema_version\(fieldInsertColumns))
                SELECT $1, \(storage.value(of: "$4")), 1, \(schemaVersion)\(fieldInsertValues(fieldPlaceholders(from: 5)))
                WHERE (SELECT yes FROM fresh)
                ON CONFLICT (id) DO UPDATE SET body = excluded.body, version = \(quotedName).version + 1,
                    schema_version = \(schemaVersionOnReplace(quotedName))\(fieldAssignmentsFromExcluded)
                RETURNING id),
            \(logChanges(deleted: false)),
            \(keyedTail(outcome: "CASE WHEN (SELECT yes FROM prior) THEN 'replaced' ELSE 'created' END", body: "$4"))
            """,
            [keyOID, PostgresParameter.text, PostgresParameter.text, PostgresParameter.bytea] + fieldTypes)
    }

    /// `$1` id, `$2` key, `$3` fingerprint, `$4` body, `$5`… the fields: a create under a key,
    /// refused when the
    /// ID is held (when another transaction's insert of it commits first, too).
    var keyedCreate: PostgresStatement {
        statement(
            "keyed_create",
            """
            WITH \(fresh),
            w AS (INSERT INTO \(quotedName) (id, body, version, schema_version\(fieldInsertColumns))
                SELECT $1, \(storage.value(of: "$4")), 1, \(schemaVersion)\(fieldInsertValues(fieldPlaceholders(from: 5)))
                WHERE (SELECT yes FROM fresh)
                ON CONFLICT (id) DO NOTHING RETURNING id),
            \(logChanges(deleted: false)),
            \(keyedTail(
                outcome: "CASE WHEN EXISTS (SELECT 1 FROM w) THEN 'created' ELSE 'alreadyExists' END",
                body: "CASE WHEN EXISTS (SELECT 1 FROM w) THEN $4 END"))
            """,
            [keyOID, PostgresParameter.text, PostgresParameter.text, PostgresParameter.bytea] + fieldTypes)
    }

    /// `$1` id, `$2` key, `$3` fingerprint: a delete under a key.
    var keyedDelete: PostgresStatement {
        statement(
            "keyed_delete",
            """
            WITH \(fresh),
            w AS (DELETE FROM \(quotedName) WHERE id = $1 AND (SELECT yes FROM fresh) RETURNING id),
            \(logChanges(deleted: true)),
            \(keyedTail(outcome: "CASE WHEN EXISTS (SELECT 1 FROM w) THEN 'deleted' ELSE 'absent' END", body: "NULL::bytea"))
            """,
            [keyOID, PostgresParameter.text, PostgresParameter.text])
    }

    /// `$1` microseconds: drops the keys applied longer ago; answers how many.
    var pruneKeys: PostgresStatement {
        statement(
            "prune_keys",
            "WITH d AS (DELETE FROM \(quotedKeys) WHERE at < now() - make_interval(secs => $1::bigint / 1e6) RETURNING 1) SELECT count(*) FROM d",
            [PostgresParameter.int8])
    }
}
