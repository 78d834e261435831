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
///     body TEXT NOT NULL,         -- the entity as JSON
///     crc  INTEGER NOT NULL       -- CRC-32 of seq, id and body (see SQLiteRow.checksum)
/// )
/// ```
///
/// `seq` is the rowid, so `ORDER BY seq` reads the table in its natural order. A new row
/// takes one more than the largest `seq` in the table, so it always sorts last; an upsert
/// updates `body` and `crc` in place, so a replaced entity keeps its `seq` and its place.
/// One statement does either, computing the `seq` and the checksum in SQL (the writer's
/// connection provides the checksum as an SQL function), so a single save is one statement
/// and one commit.
///
/// A class, so that every read, which hands it to a connection, passes one reference rather
/// than copying a dozen strings.
final class SQLiteTable: Sendable {
    /// The table's name as given, unquoted.
    let name: String
    /// The name as an SQL identifier: in double quotes, inner quotes doubled.
    let quotedName: String

    // The statements run on every call, built once, since the connection's statement cache
    // is keyed by their text.
    /// Inserts a row or updates the row with its ID, checksum included, in one statement:
    /// see ``upsert(_:on:)``.
    let upsert: String
    let selectSeq: String
    /// `max(seq)`: SQLite reads it from the last entry of the table's b-tree.
    let largestSeq: String
    let insert: String
    let update: String
    let selectRow: String
    let selectAll: String
    /// SQLite counts the smallest b-tree that holds every row: the `id` index, not the table.
    let count: String
    let deleteOne: String
    let deleteAll: String

    /// A table named `name`.
    ///
    /// The name is always quoted, never interpolated as it is, so any text is safe.
    ///
    /// - Throws: `RepositoryError` `rejected` when `name` is empty, holds a NUL character,
    ///   starts with `sqlite_` (a prefix SQLite reserves for itself), or is
    ///   `repositories_entity_versions` (where the tables' versions are kept).
    init(name: String) throws {
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
        if name.lowercased() == Self.versionsTableName {
            throw RepositoryError.rejected(
                "The SQLite table name \(name) is the table where SQLiteRepository keeps each table's entity version",
                recovery: "Pass another table name")
        }
        let table = "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        self.name = name
        self.quotedName = table
        // `max(seq)` alone in its subquery, so SQLite reads it from the end of the b-tree
        // rather than scanning (the min/max optimization does not apply inside an expression).
        // `WHERE true` tells SQLite's parser that ON CONFLICT belongs to the INSERT.
        let crc = SQLiteRow.checksumFunctionName
        upsert = """
            INSERT INTO \(table) (seq, id, body, crc) \
            SELECT next.seq, ?1, ?2, \(crc)(next.seq, ?1, ?2) \
            FROM (SELECT ifnull((SELECT max(seq) FROM \(table)), 0) + 1 AS seq) AS next WHERE true \
            ON CONFLICT(id) DO UPDATE SET body = excluded.body, crc = \(crc)(seq, id, excluded.body)
            """
        selectSeq = "SELECT seq FROM \(table) WHERE id = ?1"
        largestSeq = "SELECT max(seq) FROM \(table)"
        insert = "INSERT INTO \(table) (seq, id, body, crc) VALUES (?1, ?2, ?3, ?4)"
        update = "UPDATE \(table) SET body = ?2, crc = ?3 WHERE seq = ?1"
        selectRow = "SELECT seq, id, body, crc FROM \(table) WHERE id = ?1"
        selectAll = "SELECT seq, id, body, crc FROM \(table) ORDER BY seq"
        count = "SELECT count(*) FROM \(table)"
        deleteOne = "DELETE FROM \(table) WHERE id = ?1"
        deleteAll = "DELETE FROM \(table)"
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

    /// The column definitions, as `CREATE TABLE` writes them and `sqlite_master` keeps them.
    static let columnDefinitions =
        "seq INTEGER PRIMARY KEY, id NOT NULL UNIQUE, body TEXT NOT NULL, crc INTEGER NOT NULL"

    /// The statement that creates the table; SQLite stores it, less `IF NOT EXISTS`, as
    /// ``storedDefinition``.
    var createTable: String { "CREATE TABLE IF NOT EXISTS \(quotedName) (\(Self.columnDefinitions))" }
    /// The table's `sql` in `sqlite_master`, as SQLite keeps it after ``createTable``.
    var storedDefinition: String { "CREATE TABLE \(quotedName) (\(Self.columnDefinitions))" }

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
