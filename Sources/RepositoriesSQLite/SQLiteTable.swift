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
///     body TEXT NOT NULL          -- the entity as JSON
/// )
/// ```
///
/// `seq` is the rowid, so `ORDER BY seq` reads the table in its natural order. A new row
/// takes one more than the largest `seq` in the table, so it always sorts last; an upsert
/// updates `body` in place, so a replaced entity keeps its `seq` and its place.
struct SQLiteTable: Sendable {
    /// The table's name as given, unquoted.
    let name: String
    /// The name as an SQL identifier: in double quotes, inner quotes doubled.
    let quotedName: String

    /// A table named `name`.
    ///
    /// The name is always quoted, never interpolated as it is, so any text is safe.
    ///
    /// - Throws: `RepositoryError` `rejected` when `name` is empty, holds a NUL character, or
    ///   starts with `sqlite_` (a prefix SQLite reserves for itself).
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
        self.name = name
        self.quotedName = "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
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

    var createTable: String {
        "CREATE TABLE IF NOT EXISTS \(quotedName) (seq INTEGER PRIMARY KEY, id NOT NULL UNIQUE, body TEXT NOT NULL)"
    }
    var columns: String { "PRAGMA table_info(\(quotedName))" }
    var upsert: String {
        "INSERT INTO \(quotedName) (id, body) VALUES (?1, ?2) ON CONFLICT (id) DO UPDATE SET body = excluded.body"
    }
    var selectBody: String { "SELECT body FROM \(quotedName) WHERE id = ?1" }
    var selectAll: String { "SELECT id, body FROM \(quotedName) ORDER BY seq" }
    var count: String { "SELECT count(*) FROM \(quotedName)" }
    var deleteOne: String { "DELETE FROM \(quotedName) WHERE id = ?1" }
    var deleteAll: String { "DELETE FROM \(quotedName)" }

    /// Selects the rows of `parameterCount` IDs.
    func selectRows(parameterCount: Int) -> String {
        "SELECT id, body FROM \(quotedName) WHERE id IN (\(Self.parameters(parameterCount)))"
    }

    /// Deletes the rows of `parameterCount` IDs.
    func deleteRows(parameterCount: Int) -> String {
        "DELETE FROM \(quotedName) WHERE id IN (\(Self.parameters(parameterCount)))"
    }

    private static func parameters(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }
}
