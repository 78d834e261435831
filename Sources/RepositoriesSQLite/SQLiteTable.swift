import Repositories

/// The table behind one ``SQLiteRepository``: its name, safely quoted, and every SQL
/// statement the repository runs against it.
///
/// One row per entity:
///
/// ```sql
/// CREATE TABLE "Note" (
///     seq  INTEGER PRIMARY KEY,   -- insertion order; an upsert keeps it
///     id   NOT NULL UNIQUE,       -- the ID (see SQLiteKey); no type, so no conversions
///     body TEXT NOT NULL,         -- the entity, encoded by the table's codec; BLOB when binary
///     crc  INTEGER NOT NULL       -- CRC-32 of seq, id and body (see SQLiteRow.checksum)
/// )
/// ```
///
/// An entity that declares queryable fields (`QueryableEntity`) has a column per field after
/// these, named and typed by it and indexed (see ``SQLiteFieldColumn``), written with the row.
///
/// `body` is declared `TEXT` in a JSON table (as every table before codecs) and `BLOB` in a
/// table of any other codec (see ``SQLiteTable/recordedCodec(on:)``), so that a release
/// before codecs, which accepts only the `TEXT` shape, refuses a binary table rather than
/// misreading its rows.
///
/// `seq` is the rowid, so `ORDER BY seq` reads the table in its natural order. A new row
/// takes one more than the largest `seq` in the table, so it always sorts last; an upsert
/// updates `body` and `crc` in place, so a replaced entity keeps its `seq` and its place.
/// One statement does either, computing the `seq` and the checksum in SQL (the writer's
/// connection provides the checksum as an SQL function), so a single save is one statement
/// and one commit. The table's triggers write its change log in that same statement (see
/// ``SQLiteChangeLog``).
///
/// A class, so that every read, which hands it to a connection, passes one reference rather
/// than copying a dozen strings.
final class SQLiteTable: Sendable {
    /// How the `body` column is declared and its values stored.
    enum BodyColumn: String, Sendable {
        /// `body TEXT`, UTF-8 values: JSON, as every table before codecs.
        case text = "TEXT"
        /// `body BLOB`: any codec other than JSON.
        case blob = "BLOB"

        /// The column that holds bodies encoded by `codec`.
        init(_ codec: EntityCodec.Identifier) {
            self = codec == .json ? .text : .blob
        }
    }

    /// The table's name as given, unquoted.
    let name: String
    /// How the `body` column stores its values: ``BodyColumn/text`` until opening has read the
    /// table's codec (see ``storing(_:)``).
    let bodyColumn: BodyColumn
    /// The name as an SQL identifier: in double quotes, inner quotes doubled.
    let quotedName: String
    /// The columns of the entity's declared fields, in declaration order, after `crc`.
    let fields: [SQLiteFieldColumn]

    // The statements run on every call, built once, since the connection's statement cache
    // is keyed by their text.
    /// Inserts a row or updates the row with its ID, checksum included, in one statement:
    /// see ``upsert(_:on:)``.
    let upsert: String
    let selectSeq: String
    /// `max(seq)`: SQLite reads it from the last entry of the table's b-tree.
    let largestSeq: String
    let insert: String
    /// Writes a row's body, checksum and field values, by `seq`.
    let update: String
    /// Writes a row's field values alone, by `seq`: filling the columns of new fields.
    let updateFields: String
    let selectRow: String
    let selectAll: String
    /// SQLite counts the smallest b-tree that holds every row: the `id` index, not the table.
    let count: String
    let deleteOne: String
    let deleteAll: String
    /// The change feed's log beside the table, and its statements (see ``SQLiteChangeLog``).
    let changeLog: SQLiteChangeLog

    /// A table named `name`.
    ///
    /// The name is always quoted, never interpolated as it is, so any text is safe.
    ///
    /// - Throws: `RepositoryError` `rejected` when `name` is empty, holds a NUL character,
    ///   starts with `sqlite_` (a prefix SQLite reserves for itself), is
    ///   `repositories_entity_versions`, `repositories_entity_codecs`,
    ///   `repositories_entity_fields` or `repositories_change_feeds` (where the tables'
    ///   versions, codecs, field columns and change feeds are recorded), or starts with `repositories_changes_` (the change logs' prefix); all
    ///   without regard to ASCII case.
    init(name: String, bodyColumn: BodyColumn = .text, fields: [SQLiteFieldColumn] = []) throws {
        if name.isEmpty || name.contains("\u{0}") {
            throw RepositoryError.rejected(
                "The SQLite table name \(String(reflecting: name)) is empty or holds a NUL character",
                recovery: "Pass a table name made of letters, digits and underscores")
        }
        if name.lowercased().hasPrefix("sqlite_") {
            throw RepositoryError.rejected(
                "The SQLite table name \(String(reflecting: name)) starts with sqlite_, which SQLite reserves",
                recovery: "Pass another table name")
        }
        if [
            Self.versionsTableName, Self.codecsTableName, Self.fieldsTableName,
            SQLiteChangeLog.feedsTableName,
        ]
        .contains(name.lowercased()) {
            throw RepositoryError.rejected(
                "The SQLite table name \(name) is a table where SQLiteRepository keeps what it knows of each table",
                recovery: "Pass another table name")
        }
        if name.lowercased().hasPrefix(SQLiteChangeLog.logPrefix) {
            throw RepositoryError.rejected(
                "The SQLite table name \(name) starts with \(SQLiteChangeLog.logPrefix), where SQLiteRepository keeps each table's change log",
                recovery: "Pass another table name")
        }
        let table = "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        self.name = name
        self.bodyColumn = bodyColumn
        self.quotedName = table
        self.fields = fields
        // The field values follow the four columns, in the fields' order, in every statement.
        let fieldNames = fields.map { ", " + $0.quotedName }.joined()
        func parameters(from first: Int) -> String {
            fields.indices.map { ", ?\(first + $0)" }.joined()
        }
        func assignments(from first: Int, excluded: Bool) -> String {
            fields.enumerated().map { index, field in
                ", \(field.quotedName) = " + (excluded ? "excluded.\(field.quotedName)" : "?\(first + index)")
            }.joined()
        }
        // `max(seq)` alone in its subquery, so SQLite reads it from the end of the b-tree
        // rather than scanning (the min/max optimization does not apply inside an expression).
        // `WHERE true` tells SQLite's parser that ON CONFLICT belongs to the INSERT.
        let crc = SQLiteRow.checksumFunctionName
        upsert = """
            INSERT INTO \(table) (seq, id, body, crc\(fieldNames)) \
            SELECT next.seq, ?1, ?2, \(crc)(next.seq, ?1, ?2)\(parameters(from: 3)) \
            FROM (SELECT ifnull((SELECT max(seq) FROM \(table)), 0) + 1 AS seq) AS next WHERE true \
            ON CONFLICT(id) DO UPDATE SET body = excluded.body, crc = \(crc)(seq, id, excluded.body)\
            \(assignments(from: 0, excluded: true))
            """
        selectSeq = "SELECT seq FROM \(table) WHERE id = ?1"
        largestSeq = "SELECT max(seq) FROM \(table)"
        insert =
            "INSERT INTO \(table) (seq, id, body, crc\(fieldNames)) VALUES (?1, ?2, ?3, ?4\(parameters(from: 5)))"
        update =
            "UPDATE \(table) SET body = ?2, crc = ?3\(assignments(from: 4, excluded: false)) WHERE seq = ?1"
        updateFields =
            "UPDATE \(table) SET "
            + fields.enumerated().map { "\($1.quotedName) = ?\($0 + 2)" }.joined(separator: ", ")
            + " WHERE seq = ?1"
        selectRow = "SELECT seq, id, body, crc FROM \(table) WHERE id = ?1"
        selectAll = "SELECT seq, id, body, crc FROM \(table) ORDER BY seq"
        count = "SELECT count(*) FROM \(table)"
        deleteOne = "DELETE FROM \(table) WHERE id = ?1"
        deleteAll = "DELETE FROM \(table)"
        changeLog = SQLiteChangeLog(tableName: name, quotedTable: table)
    }

    /// The default table name for `type`: its name with every character other than an ASCII
    /// letter, digit or underscore replaced by `_` (`Wrapper<Int>` becomes `Wrapper_Int_`).
    static func defaultName(for type: Any.Type) -> String {
        let scalars = String(describing: type).unicodeScalars.map { scalar -> Character in
            let isWordCharacter =
                scalar.isASCII
                && (scalar == "_" || scalar.properties.isAlphabetic
                    || ("0"..."9").contains(scalar))
            return isWordCharacter ? Character(scalar) : "_"
        }
        var name = String(scalars)
        if let first = name.unicodeScalars.first, ("0"..."9").contains(first) { name = "_" + name }
        return name
    }

    // MARK: Statements

    /// This table, its bodies stored as `column` declares: what opening makes of the table
    /// once it knows its codec.
    func storing(_ column: BodyColumn) throws -> SQLiteTable {
        column == bodyColumn ? self : try SQLiteTable(name: name, bodyColumn: column, fields: fields)
    }

    /// The column definitions, as `CREATE TABLE` writes them and `sqlite_master` keeps them.
    static func columnDefinitions(_ body: BodyColumn) -> String {
        "seq INTEGER PRIMARY KEY, id NOT NULL UNIQUE, body \(body.rawValue) NOT NULL, crc INTEGER NOT NULL"
    }

    /// The statement that creates the table with its bodies stored as `body`, and a column
    /// for each declared field; without fields, SQLite stores it, less `IF NOT EXISTS`, as
    /// ``storedDefinition(_:)``.
    func createTable(_ body: BodyColumn) -> String {
        let fieldColumns = fields.map { ", \($0.quotedName) \($0.declaredType)" }.joined()
        return "CREATE TABLE IF NOT EXISTS \(quotedName) (\(Self.columnDefinitions(body))\(fieldColumns))"
    }
    /// The table's `sql` in `sqlite_master`, as SQLite keeps it after ``createTable(_:)``.
    func storedDefinition(_ body: BodyColumn) -> String {
        "CREATE TABLE \(quotedName) (\(Self.columnDefinitions(body)))"
    }

    /// Selects the rows of `parameterCount` IDs.
    func selectRows(parameterCount: Int) -> String {
        "SELECT seq, id, body, crc FROM \(quotedName) WHERE id IN (\(Self.parameters(parameterCount)))"
    }

    /// Deletes the rows of `parameterCount` IDs.
    func deleteRows(parameterCount: Int) -> String {
        "DELETE FROM \(quotedName) WHERE id IN (\(Self.parameters(parameterCount)))"
    }

    private static func parameters(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }
}
