import Repositories

/// The statements that add, fill and drop the field columns (``PostgresFieldColumn``) when
/// the fields an entity declares change, and that fill the columns of rows a writer that
/// does not know them left behind.
extension PostgresTable {
    /// The table's columns: name, type as `format_type` writes it, and comment. Parameter:
    /// the quoted name.
    static let describeColumnsSQL = """
        SELECT a.attname::text, format_type(a.atttypid, a.atttypmod),
               coalesce(col_description(a.attrelid, a.attnum), '')
        FROM pg_attribute a
        WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped
        ORDER BY a.attnum
        """

    /// The index that finds rows whose field columns are behind their body, for this
    /// declaration.
    var staleIndexName: String { "\(name.prefix(40))~stale~" + String(declarationStamp, radix: 16) }

    /// `ALTER TABLE … ADD COLUMN` for `field`, and the comment that marks it as the field's.
    func addColumn(_ field: PostgresFieldColumn) -> String {
        """
        ALTER TABLE \(quotedName) ADD COLUMN \(field.quotedName) \(field.sqlType);
        \(comment(on: field));
        """
    }

    /// The comment that marks `field`'s column as the repository's (no semicolon).
    private func comment(on field: PostgresFieldColumn) -> String {
        "COMMENT ON COLUMN \(quotedName).\(field.quotedName) IS \(literal(field.comment))"
    }

    /// The columns that stamp each row with what its field columns were written for:
    /// `fields_version`, `fields_declaration`, and `fields_behind`, stored, which the
    /// planner keeps statistics of (see ``staleCondition``).
    static let stampColumns = [
        "fields_version bigint", "fields_declaration bigint",
        "fields_behind boolean GENERATED ALWAYS AS (fields_version IS DISTINCT FROM version) STORED",
    ]

    /// `, "a" type, …, fields_version …`: the field and stamp columns of a new table; empty
    /// when the entity declares no fields.
    var fieldColumnDefinitions: String {
        guard !fields.isEmpty else { return "" }
        return (fields.map { "\($0.quotedName) \($0.sqlType)" } + Self.stampColumns).map { ",\n" + $0 }
            .joined()
    }

    /// The comments and indexes of a new table's field columns, one statement each, without
    /// semicolons.
    var fieldObjects: [String] {
        guard !fields.isEmpty else { return [] }
        return fields.map(comment(on:)) + fields.map(createIndex(on:)) + [createStaleIndex]
    }

    /// `CREATE INDEX` on `field`'s column (no semicolon), `NULL` first as the queries sort it, so one index
    /// serves both directions.
    func createIndex(on field: PostgresFieldColumn) -> String {
        let index = SQLDialect.quoted(field.indexName(in: name))
        return "CREATE INDEX \(index) ON \(quotedName) (\(field.quotedName) NULLS FIRST)"
    }

    /// `CREATE INDEX` (no semicolon) on the rows whose columns are behind their body: empty, so cheap to
    /// ask, unless a writer that does not know the columns wrote.
    var createStaleIndex: String {
        "CREATE INDEX \(SQLDialect.quoted(staleIndexName)) ON \(quotedName) (id) WHERE \(staleCondition)"
    }

    /// Up to 1,000 rows whose field columns are behind their body, in key order, after the
    /// key `$1` when `after`: their IDs, bodies, versions of the entity, and the transaction
    /// that wrote them (`xmin`).
    func staleRows(after: Bool) -> PostgresStatement {
        statement(
            after ? "stale_rows_after" : "stale_rows",
            """
            SELECT id, \(bodyColumns), xmin::text::bigint FROM \(quotedName)
            WHERE \(staleCondition)\(after ? " AND id > $1" : "") ORDER BY id LIMIT 1000
            """,
            after ? [keyOID] : [])
    }

    /// Writes the field columns of the rows `$1` from `$3`…, each only while the transaction
    /// that wrote it is still `$2` (no write, nor a delete and a create, came since it was
    /// read), and marks them current. Not logged: no entity changed.
    var fillFields: PostgresStatement {
        statement(
            "fill_fields",
            """
            UPDATE \(quotedName) t SET \(zip(fields, fieldUnnestColumns("u.")).map { "\($0.quotedName) = \($1)" }
                .joined(separator: ", ")), fields_version = t.version, fields_declaration = \(declarationStamp)
            FROM unnest($1::\(keyArrayType), $2::bigint[]\(fieldUnnestArguments(from: 3))) AS u(k, x\(fieldUnnestAliases))
            WHERE t.id = u.k AND t.xmin::text::bigint = u.x
            """,
            [keyArrayOID, PostgresParameter.int8Array] + fieldArrayTypes)
    }
}
