import Repositories

/// A table's columns as the catalog describes them, checked against what a
/// ``PostgresRepository`` needs: its five columns with their types, and any other column
/// only when the repository's inserts can leave it out.
///
/// A DBA may add what a database needs beside the repository's data: a nullable or
/// defaulted column, a generated column (`GENERATED ALWAYS AS (body->>'sku') STORED`), an
/// index, a trigger. None of these stops the repository from opening.
struct PostgresTableShape: Sendable {
    /// One column of the table.
    struct Column: Sendable {
        var name: String
        /// Its type as `format_type` writes it (`bigint`, `text`, `jsonb`).
        var type: String
        var notNull: Bool
        /// `a` (always) or `d` (by default) for an identity column, else empty.
        var identity: String
        /// `s` for a stored generated column, else empty.
        var generated: String
        var hasDefault: Bool
        var collation: String
        /// Whether the column alone is the primary key.
        var primaryKey: Bool
    }

    /// The relation's kind (`r` for a table), or empty when there is no such relation.
    var kind: String
    var columns: [Column]

    /// The relation's kind and columns, in order. Parameter: the quoted name.
    static let describeSQL = """
        SELECT c.relkind::text, a.attname::text, format_type(a.atttypid, a.atttypmod), a.attnotnull::text,
               a.attidentity::text, a.attgenerated::text, a.atthasdef::text, coalesce(co.collname::text, ''),
               EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = c.oid AND i.indisprimary
                       AND i.indnatts = 1 AND i.indkey[0] = a.attnum)::text
        FROM pg_class c
        JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
        LEFT JOIN pg_collation co ON co.oid = a.attcollation
        WHERE c.oid = to_regclass($1)
        ORDER BY a.attnum
        """

    /// Reads the shape of the relation `quotedName`.
    init(of quotedName: String, on connection: PostgresConnection) throws {
        let result = try connection.query(Self.describeSQL, [quotedName])
        let field = { (row: Int, column: Int) in result.text(row, column) ?? "" }
        kind = result.rowCount > 0 ? field(0, 0) : ""
        columns = (0..<result.rowCount).map { row in
            Column(
                name: field(row, 1), type: field(row, 2), notNull: field(row, 3) == "true",
                identity: field(row, 4), generated: field(row, 5), hasDefault: field(row, 6) == "true",
                collation: field(row, 7), primaryKey: field(row, 8) == "true")
        }
    }

    /// The columns, for a reader: `id text, body jsonb, …`.
    var described: String {
        columns.map { "\($0.name) \($0.type)" }.joined(separator: ", ")
    }

    /// How `table`'s entity table keeps its bodies, when this shape can hold its entities.
    ///
    /// - Returns: the body's storage, or what is wrong, in a few words.
    func storage(for table: PostgresTable) -> Result<PostgresBodyStorage, Mismatch> {
        guard kind == "r" else {
            return .failure(Mismatch(kind.isEmpty ? "no such table" : "relation kind \(kind), not a table"))
        }
        let byName = Dictionary(columns.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        guard let seq = byName["seq"], seq.type == "bigint", seq.identity == "a" else {
            return .failure(Mismatch("no seq bigint GENERATED ALWAYS AS IDENTITY"))
        }
        let keyType = table.integerKeys ? "bigint" : "text"
        guard let id = byName["id"], id.type == keyType, id.primaryKey,
            table.integerKeys || id.collation == "C"
        else {
            return .failure(Mismatch("no id \(table.keyType) PRIMARY KEY"))
        }
        guard let body = byName["body"], body.notNull,
            let storage = PostgresBodyStorage(columnType: body.type)
        else {
            return .failure(Mismatch("no body jsonb NOT NULL (or bytea NOT NULL)"))
        }
        guard let version = byName["version"], version.type == "bigint", version.notNull else {
            return .failure(Mismatch("no version bigint NOT NULL"))
        }
        if let stamp = byName["schema_version"], stamp.type != "integer" || !stamp.notNull {
            return .failure(Mismatch("schema_version is not integer NOT NULL"))
        }
        let own: Set = ["seq", "id", "body", "version", "schema_version"]
        if let blocking = columns.first(where: {
            !own.contains($0.name) && $0.notNull && !$0.hasDefault && $0.identity.isEmpty
                && $0.generated.isEmpty
        }) {
            return .failure(
                Mismatch(
                    "\(blocking.name) is NOT NULL without a default, so the repository's inserts, which leave it out, would fail"
                ))
        }
        return .success(storage)
    }

    /// Why a table cannot hold a repository's entities.
    struct Mismatch: Error, Sendable {
        var problem: String
        init(_ problem: String) { self.problem = problem }
    }
}
