import Foundation
import Repositories

/// The column a declared field (`QueryableField`) is kept in, beside the row's body, with an
/// index of its own, so a query on the field runs in SQLite.
///
/// The column is named after the field and typed by it:
///
/// | field type | column | value |
/// |---|---|---|
/// | `bool` | `INTEGER` | 0 or 1 |
/// | `integer` | `INTEGER` | the number |
/// | `double` | `REAL` | the number; NaN as the text `'NaN'`, which SQLite orders after every number |
/// | `text` | `TEXT` | the text in NFC; SQLite's `BINARY` collation compares its UTF-8 bytes |
/// | `date` | `REAL` | seconds since 2001-01-01 00:00:00 UTC, `Date`'s own, so no value is rounded |
///
/// `nil` is `NULL`, which SQLite orders before every value, as `FieldValue` does. So SQLite
/// sorts and compares each column in the order every store of the package uses.
struct SQLiteFieldColumn: Sendable, Equatable {
    /// The field's name, which is the column's.
    var name: String
    /// The field's type, recorded with the column (see ``SQLiteTable/recordedFields(on:)``).
    var type: FieldType

    /// The name as an SQL identifier (`SQLDialect.quoted(_:)`).
    var quotedName: String { SQLDialect.quoted(name) }

    /// The column's declared type, as `pragma_table_info` lists it.
    var declaredType: String {
        switch type {
        case .bool, .integer: "INTEGER"
        case .double, .date: "REAL"
        case .text: "TEXT"
        }
    }

    /// The names the row table uses for itself.
    static let reservedNames: Set<String> = ["seq", "id", "body", "crc"]

    /// The columns for the fields `Entity` declares, in declaration order; none when it
    /// declares none.
    ///
    /// - Throws: `RepositoryError` `rejected` when a declaration breaks the rules of
    ///   `validateQueryableFields()`, or names a field `seq`, `id`, `body` or `crc`, the
    ///   table's own columns.
    static func columns<Entity>(for type: Entity.Type) throws -> [SQLiteFieldColumn] {
        try DeclaredFields.checked(
            type, reserving: reservedNames, by: "SQLiteRepository",
            reservedDescription: "seq, id, body and crc are the table's own columns"
        ).map { SQLiteFieldColumn(name: $0.name, type: $0.type) }
    }

    /// The index on the column in `table`: `repositories_field_TABLE.FIELD`. A field name
    /// holds no `.`, so no two tables' fields share a name (`note` and `tag_name` against
    /// `note_tag` and `name` would, with `_`).
    func indexName(in table: String) -> String {
        "repositories_field_\(table).\(name)"
    }

    /// ``indexName(in:)`` as an SQL identifier.
    func quotedIndexName(in table: String) -> String {
        "\"" + indexName(in: table).replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
