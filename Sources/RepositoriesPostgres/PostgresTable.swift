import Repositories

/// The table a ``PostgresRepository`` owns: its name, its channel, and every statement the
/// repository runs on it.
///
/// ```sql
/// CREATE TABLE "Note" (
///     seq            bigint GENERATED ALWAYS AS IDENTITY,   -- insertion order
///     id             text COLLATE "C" PRIMARY KEY,          -- bigint for integer IDs
///     body           jsonb NOT NULL,                        -- the entity's JSON (bytea in older tables)
///     version        bigint NOT NULL,                       -- 1, then +1 at each replace
///     schema_version integer NOT NULL DEFAULT 1             -- the entity version that wrote the row
/// );
/// CREATE INDEX "Note_seq" ON "Note" (seq);
/// ```
///
/// Every write statement also records each ID it changed in the table's change log, in the
/// same statement (see `PostgresTable+Feed.swift`), and answers the IDs it changed
/// (``changedIDs``), which the repository announces once the write has committed
/// (``PostgresNotifier``). No write statement notifies: PostgreSQL serialises the commits of
/// notifying transactions.
struct PostgresTable: Sendable {
    /// The name, unquoted.
    let name: String
    /// Whether the `id` column is a `bigint` (rather than `text`).
    let integerKeys: Bool
    /// How `body` keeps the JSON: `jsonb` for a table this release creates; read from the
    /// table when it is opened (``PostgresTableShape``).
    var storage = PostgresBodyStorage.jsonb
    /// The entity version this repository writes, stamped on every row it writes; a write
    /// over a row a newer version wrote fails instead (``schemaVersionOnReplace``).
    var schemaVersion = 1
    /// The columns of the fields the entity declares (``PostgresFieldColumn``), which every
    /// write statement fills from the row's body (see `PostgresTable+FieldSQL.swift`).
    var fields: [PostgresFieldColumn] = []
    /// Whether queries on the fields run in SQL: the server keeps text in UTF-8, whose bytes
    /// `COLLATE "C"` compares in code-point order (``PostgresFieldSetup``).
    var queriesRunInSQL = true

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

    /// Runs `ddl` only when the relation `quotedRelation` (a table or an index) is missing.
    /// `CREATE … IF NOT EXISTS` would still demand the right to create in the schema, or to
    /// own the table, and a service's user often may only read and write the tables.
    func ifMissing(_ quotedRelation: String, _ ddl: String) -> String {
        """
        DO $$ BEGIN
            IF to_regclass(\(literal(quotedRelation))) IS NULL THEN
                \(ddl);
            END IF;
        END $$;
        """
    }

    /// Adds `definition`'s column to `table` only when it is missing: `ALTER TABLE … ADD
    /// COLUMN IF NOT EXISTS` would still demand that the user own the table, and a service's
    /// user often only reads and writes it.
    func addColumnIfMissing(to table: String, _ definition: String) -> String {
        let column = String(definition.prefix { $0 != " " })
        return """
            DO $$ BEGIN
                IF NOT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass(\(literal(table)))
                               AND attname = \(literal(column)) AND NOT attisdropped) THEN
                    ALTER TABLE \(table) ADD COLUMN \(definition);
                END IF;
            END $$;
            """
    }
    /// The LISTEN/NOTIFY channel of the table's changes.
    var channel: String { "\(name)_changes" }
    var keyType: String { integerKeys ? "bigint" : "text COLLATE \"C\"" }
    var keyOID: UInt32 { integerKeys ? PostgresParameter.int8 : PostgresParameter.text }
    var keyArrayOID: UInt32 {
        integerKeys ? PostgresParameter.int8Array : PostgresParameter.textArray
    }
    var keyArrayType: String { integerKeys ? "bigint[]" : "text[]" }

    // MARK: Creating and checking

    /// Creates the table when missing, with the columns, comments and indexes of the fields the
    /// entity declares (so a new table needs no field migration), under a transaction-scoped
    /// advisory lock so that instances starting together do not race to create it.
    var createScript: String {
        let table = """
            CREATE TABLE \(quotedName) (
                seq bigint GENERATED ALWAYS AS IDENTITY,
                id \(keyType) PRIMARY KEY,
                body \(storage.columnType) NOT NULL,
                version bigint NOT NULL,
                schema_version integer NOT NULL DEFAULT 1\(fieldColumnDefinitions)
            )
            """
        return """
            BEGIN;
            SELECT pg_advisory_xact_lock(hashtext('swift-repositories:' || \(literal(name))));
            \(ifMissing(quotedName, ([table] + fieldObjects).joined(separator: ";\n")))
            COMMIT;
            """
    }

    /// Creates the index on `seq` when missing, and the `schema_version` column a table an
    /// earlier release created lacks (its rows were written before versions, so version 1):
    /// run once the table's shape is checked, so a table of another shape is never touched.
    /// Under the same advisory lock as the table: `IF NOT EXISTS` does not stop two sessions
    /// creating one index at once, and the later one fails on the catalog's unique key (seen
    /// with two processes starting together).
    var createIndex: String {
        """
        BEGIN;
        SELECT pg_advisory_xact_lock(hashtext('swift-repositories:' || \(literal(name))));
        \(addColumnIfMissing(to: quotedName, "schema_version integer NOT NULL DEFAULT 1"))
        \(ifMissing("\"\(name)_seq\"", "CREATE INDEX \"\(name)_seq\" ON \(quotedName) (seq)"))
        COMMIT;
        """
    }

    // MARK: Statements

    /// The statement `name` (prefixed, so it cannot clash with a user's); `sql` is built only
    /// when the statement is prepared or named in an error.
    func statement(
        _ name: String, _ sql: @autoclosure @escaping @Sendable () -> String, _ types: [UInt32]
    ) -> PostgresStatement {
        PostgresStatement(name: "repositories_\(name)", sql: sql(), parameterTypes: types)
    }

    /// Answers the IDs in `w` (a CTE of the changed rows' `id`), one row each: none when no
    /// row changed.
    var changedIDs: String {
        "SELECT id FROM w"
    }

    /// The keys a write statement answered (``changedIDs``).
    func changedKeys(in result: PostgresResult) -> [PostgresKey] {
        (0..<result.rowCount).compactMap { key(in: result, row: $0, column: 0) }
    }

    /// The `SET` value of `schema_version` when a write replaces the row `row` (a table alias
    /// or the table's name): this repository's version, or, when a newer version of the entity
    /// wrote the row, an error that ends the statement and its transaction, so that nothing
    /// of it is written. PostgreSQL has no expression that raises an error, so a cast of a
    /// text that is not a number raises one (SQLSTATE 22P02), whose message
    /// ``PostgresSchemaRefusal`` reads back.
    func schemaVersionOnReplace(_ row: String) -> String {
        """
        CASE WHEN \(row).schema_version <= \(schemaVersion) THEN \(schemaVersion)
            ELSE (\(literal(PostgresSchemaRefusal.marker)) || \(row).schema_version || ' \(schemaVersion) '
                || \(row).id::text)::integer END
        """
    }

    private var upsertTail: String {
        """
        ON CONFLICT (id) DO UPDATE SET body = excluded.body, version = \(quotedName).version + 1,
            schema_version = \(schemaVersionOnReplace(quotedName))\(fieldAssignmentsFromExcluded) RETURNING id
        """
    }

    /// The body, as the JSON's bytes, and the version of the entity that wrote it.
    var bodyColumns: String { "\(storage.bytes(of: "body")), schema_version::bigint" }

    /// The body ``bodyColumns`` read into `result`'s columns `column` and `column + 1`, or
    /// `nil` when it is NULL (no row).
    func storedBody(in result: PostgresResult, row: Int, column: Int) -> PostgresStoredBody? {
        guard let bytes = result.bytes(row, column) else { return nil }
        return PostgresStoredBody(bytes: bytes, schemaVersion: Int(result.int64(row, column + 1) ?? 1))
    }

    var fetch: PostgresStatement {
        statement("fetch", "SELECT \(bodyColumns) FROM \(quotedName) WHERE id = $1", [keyOID])
    }

    var fetchIDs: PostgresStatement {
        statement(
            "fetch_ids", "SELECT id, \(bodyColumns) FROM \(quotedName) WHERE id = ANY($1)", [keyArrayOID])
    }

    var fetchAll: PostgresStatement {
        statement("fetch_all", "SELECT id, \(bodyColumns) FROM \(quotedName) ORDER BY seq", [])
    }

    var count: PostgresStatement {
        statement("count", "SELECT count(*) FROM \(quotedName)", [])
    }

    var upsert: PostgresStatement {
        statement(
            "upsert",
            """
            WITH w AS (INSERT INTO \(quotedName) (id, body, version, schema_version\(fieldInsertColumns))
                VALUES ($1, \(storage.value(of: "$2")), 1, \(schemaVersion)\(fieldInsertValues(fieldPlaceholders(from: 3))))
                \(upsertTail)),
            \(logChanges(deleted: false)) \(changedIDs)
            """,
            [keyOID, PostgresParameter.bytea] + fieldTypes)
    }

    /// The statement that inserts or replaces `rows` (distinct keys, each with its body), and
    /// its parameters: ``upsert`` for one row, ``upsertMany`` in the rows' order for more.
    func upsertStatement(for rows: [(key: PostgresKey, row: PostgresEncodedRow)]) throws -> (
        PostgresStatement, [PostgresParameter]
    ) {
        if rows.count == 1 {
            return (
                upsert,
                [PostgresParameter(rows[0].key), PostgresParameter(bytes: rows[0].row.body)]
                    + fieldParameters(rows[0].row.fields)
            )
        }
        let keys = PostgresParameter(keys: rows.map(\.key), integer: integerKeys)
        let bodies = PostgresParameter(array: rows.map(\.row.body), elementType: PostgresParameter.bytea)
        return (upsertMany, [keys, bodies] + fieldArrayParameters(rows.map(\.row.fields)))
    }

    /// Inserts the rows in the arrays' order, so new IDs get `seq`s in that order.
    var upsertMany: PostgresStatement {
        statement(
            "upsert_many",
            """
            WITH w AS (INSERT INTO \(quotedName) (id, body, version, schema_version\(fieldInsertColumns))
                SELECT k, \(storage.value(of: "b")), 1, \(schemaVersion)\(fieldInsertValues(fieldUnnestColumns()))
                FROM unnest($1::\(keyArrayType), $2::bytea[]\(fieldUnnestArguments(from: 3)))
                    WITH ORDINALITY AS u(k, b\(fieldUnnestAliases), n) ORDER BY n
                \(upsertTail)),
            \(logChanges(deleted: false)) \(changedIDs)
            """,
            [keyArrayOID, PostgresParameter.byteaArray] + fieldArrayTypes)
    }

    var delete: PostgresStatement {
        statement(
            "delete",
            "WITH w AS (DELETE FROM \(quotedName) WHERE id = $1 RETURNING id), \(logChanges(deleted: true)) \(changedIDs)",
            [keyOID])
    }

    var deleteMany: PostgresStatement {
        statement(
            "delete_many",
            "WITH w AS (DELETE FROM \(quotedName) WHERE id = ANY($1) RETURNING id), \(logChanges(deleted: true)) \(changedIDs)",
            [keyArrayOID])
    }

    var deleteAll: PostgresStatement {
        statement(
            "delete_all",
            """
            WITH w AS (DELETE FROM \(quotedName) RETURNING id), \(logChanges(deleted: true))
            SELECT EXISTS (SELECT 1 FROM w)
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

/// A row's body as read back: the entity's JSON, and the version of the entity that wrote it.
struct PostgresStoredBody: Sendable {
    /// The JSON's UTF-8 bytes.
    var bytes: [UInt8]
    /// The row's `schema_version`.
    var schemaVersion: Int
}
