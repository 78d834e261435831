import Repositories

/// The table a ``PostgresRepository`` owns: its name, its channel, and every statement the
/// repository runs on it.
///
/// ```sql
/// CREATE TABLE "Note" (
///     seq     bigint GENERATED ALWAYS AS IDENTITY,   -- insertion order
///     id      text COLLATE "C" PRIMARY KEY,          -- bigint for integer IDs
///     body    bytea NOT NULL,                        -- the entity's JSON
///     version bigint NOT NULL                        -- 1, then +1 at each replace
/// );
/// CREATE INDEX "Note_seq" ON "Note" (seq);
/// ```
///
/// Every write statement also records each ID it changed in the table's change log, in the
/// same statement (see `PostgresTable+Feed.swift`), and notifies `<table>_changes` with the JSON array of the IDs it changed
/// (`[1,2]`, `["a","b"]`), or `*` when that would pass 7,900 bytes or the statement deleted
/// everything; a statement that changed nothing notifies nothing. A notification is sent when
/// its transaction commits, and only then.
struct PostgresTable: Sendable {
    /// The name, unquoted.
    let name: String
    /// Whether the `id` column is a `bigint` (rather than `text`).
    let integerKeys: Bool

    /// The notification payload meaning "anything may have changed".
    static let everything = "*"
    /// Payloads longer than this many bytes are sent as ``everything``; PostgreSQL's limit is
    /// 8,000.
    static let payloadLimit = 7_900

    /// The name a table gets when the options name none: the type's name, every character
    /// other than an ASCII letter, digit or underscore replaced by `_`.
    static func defaultName(for type: Any.Type) -> String {
        let scalars = String(describing: type).unicodeScalars.map { scalar -> Character in
            let isWord =
                scalar.isASCII
                && (scalar == "_" || scalar.properties.isAlphabetic || ("0"..."9").contains(scalar))
            return isWord ? Character(scalar) : "_"
        }
        var name = String(scalars)
        if let first = name.unicodeScalars.first, ("0"..."9").contains(first) { name = "_" + name }
        return String(name.prefix(55))
    }

    /// - Throws: `RepositoryError` `rejected` when `name` is not 1 to 55 ASCII letters, digits
    ///   and underscores starting with a letter or underscore.
    init(name: String, integerKeys: Bool) throws {
        let scalars = Array(name.unicodeScalars)
        let isWord = { (scalar: Unicode.Scalar) in
            scalar.isASCII
                && (scalar == "_" || scalar.properties.isAlphabetic || ("0"..."9").contains(scalar))
        }
        guard (1...55).contains(scalars.count), scalars.allSatisfy(isWord), let first = scalars.first,
            !("0"..."9").contains(first)
        else {
            throw RepositoryError.rejected(
                "\"\(name)\" cannot name a PostgresRepository's table",
                recovery:
                    "Use 1 to 55 ASCII letters, digits and underscores, starting with a letter or underscore")
        }
        self.name = name
        self.integerKeys = integerKeys
    }

    var quotedName: String { "\"\(name)\"" }
    /// The LISTEN/NOTIFY channel of the table's changes.
    var channel: String { "\(name)_changes" }
    var keyType: String { integerKeys ? "bigint" : "text COLLATE \"C\"" }
    var keyOID: UInt32 { integerKeys ? PostgresParameter.int8 : PostgresParameter.text }
    private var keyArrayOID: UInt32 {
        integerKeys ? PostgresParameter.int8Array : PostgresParameter.textArray
    }
    private var keyArrayType: String { integerKeys ? "bigint[]" : "text[]" }

    // MARK: Creating and checking

    /// Creates the table when missing, under a transaction-scoped advisory lock so that
    /// instances starting together do not race to create it.
    var createScript: String {
        """
        BEGIN;
        SELECT pg_advisory_xact_lock(hashtext('swift-repositories:' || \(literal(name))));
        CREATE TABLE IF NOT EXISTS \(quotedName) (
            seq bigint GENERATED ALWAYS AS IDENTITY,
            id \(keyType) PRIMARY KEY,
            body bytea NOT NULL,
            version bigint NOT NULL
        );
        COMMIT;
        """
    }

    /// Creates the index on `seq` when missing: run once the table's shape is checked, so a
    /// table of another shape is never touched. Under the same advisory lock as the table:
    /// `IF NOT EXISTS` does not stop two sessions creating one index at once, and the later
    /// one fails on the catalog's unique key (seen with two processes starting together).
    var createIndex: String {
        """
        BEGIN;
        SELECT pg_advisory_xact_lock(hashtext('swift-repositories:' || \(literal(name))));
        CREATE INDEX IF NOT EXISTS "\(name)_seq" ON \(quotedName) (seq);
        COMMIT;
        """
    }

    /// The relation's kind (`r` for a table) and its columns, in order: name, type, NOT NULL,
    /// identity, primary key. Parameter: the quoted name.
    static let describeSQL = """
        SELECT c.relkind::text, a.attname::text, format_type(a.atttypid, a.atttypmod), a.attnotnull::text,
               a.attidentity::text, coalesce(co.collname::text, ''),
               EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = c.oid AND i.indisprimary
                       AND i.indnatts = 1 AND i.indkey[0] = a.attnum)::text
        FROM pg_class c
        JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
        LEFT JOIN pg_collation co ON co.oid = a.attcollation
        WHERE c.oid = to_regclass($1)
        ORDER BY a.attnum
        """

    /// The columns ``describeSQL`` must find, each as "name type notnull identity collation primary".
    var expectedColumns: [String] {
        [
            "seq bigint true a  false",
            integerKeys ? "id bigint true   true" : "id text true  C true",
            "body bytea true   false",
            "version bigint true   false",
        ]
    }

    /// The columns as ``expectedColumns`` spells them, for a reader.
    var expectedShape: String {
        "seq bigint GENERATED ALWAYS AS IDENTITY, id \(keyType) PRIMARY KEY, body bytea NOT NULL, version bigint NOT NULL"
    }

    // MARK: Statements

    func statement(_ name: String, _ sql: String, _ types: [UInt32]) -> PostgresStatement {
        PostgresStatement(name: "repositories_\(name)", sql: sql, parameterTypes: types)
    }

    /// Notifies the IDs in `w` (a CTE of the changed rows' `id`), or ``everything`` when they
    /// would not fit; nothing when no row changed.
    var notifyChangedIDs: String {
        """
        SELECT pg_notify(\(literal(channel)), CASE WHEN octet_length(p) <= \(Self.payloadLimit) THEN p ELSE '*' END)
        FROM (SELECT json_agg(id)::text AS p FROM w) AS changed WHERE p IS NOT NULL
        """
    }

    private var upsertTail: String {
        "ON CONFLICT (id) DO UPDATE SET body = excluded.body, version = \(quotedName).version + 1 RETURNING id"
    }

    var fetch: PostgresStatement {
        statement("fetch", "SELECT body FROM \(quotedName) WHERE id = $1", [keyOID])
    }

    var fetchIDs: PostgresStatement {
        statement("fetch_ids", "SELECT id, body FROM \(quotedName) WHERE id = ANY($1)", [keyArrayOID])
    }

    var fetchAll: PostgresStatement {
        statement("fetch_all", "SELECT id, body FROM \(quotedName) ORDER BY seq", [])
    }

    var count: PostgresStatement {
        statement("count", "SELECT count(*) FROM \(quotedName)", [])
    }

    var upsert: PostgresStatement {
        statement(
            "upsert",
            "WITH w AS (INSERT INTO \(quotedName) (id, body, version) VALUES ($1, $2, 1) \(upsertTail)), \(logChanges(deleted: false)) \(notifyChangedIDs)",
            [keyOID, PostgresParameter.bytea])
    }

    /// Inserts the rows in the arrays' order, so new IDs get `seq`s in that order.
    var upsertMany: PostgresStatement {
        statement(
            "upsert_many",
            """
            WITH w AS (INSERT INTO \(quotedName) (id, body, version)
                SELECT k, b, 1 FROM unnest($1::\(keyArrayType), $2::bytea[]) WITH ORDINALITY AS u(k, b, n) ORDER BY n
                \(upsertTail)),
            \(logChanges(deleted: false)) \(notifyChangedIDs)
            """,
            [keyArrayOID, PostgresParameter.byteaArray])
    }

    var delete: PostgresStatement {
        statement(
            "delete",
            "WITH w AS (DELETE FROM \(quotedName) WHERE id = $1 RETURNING id), \(logChanges(deleted: true)) \(notifyChangedIDs)",
            [keyOID])
    }

    var deleteMany: PostgresStatement {
        statement(
            "delete_many",
            "WITH w AS (DELETE FROM \(quotedName) WHERE id = ANY($1) RETURNING id), \(logChanges(deleted: true)) \(notifyChangedIDs)",
            [keyArrayOID])
    }

    var deleteAll: PostgresStatement {
        statement(
            "delete_all",
            """
            WITH w AS (DELETE FROM \(quotedName) RETURNING id), \(logChanges(deleted: true))
            SELECT pg_notify(\(literal(channel)), '*') WHERE EXISTS (SELECT 1 FROM w)
            """,
            [])
    }

    /// The key in a binary result's `column` (an `id`), or `nil` for NULL.
    func key(in result: PostgresResult, row: Int, column: Int) -> PostgresKey? {
        if integerKeys { return result.int64(row, column).map(PostgresKey.integer) }
        return result.text(row, column).map(PostgresKey.text)
    }

    /// `text` as an SQL string literal. Only ever called with the validated name and channel.
    func literal(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }
}
