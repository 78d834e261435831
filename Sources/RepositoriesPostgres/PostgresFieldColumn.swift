import Foundation
import Repositories

/// The column a declared field (`QueryableField`) is kept in, beside the row's body, with an
/// index of its own, so a query on the field runs in PostgreSQL and other programs can read
/// and index the value as SQL.
///
/// The column is named after the field and typed by it:
///
/// | field type | column | value |
/// |---|---|---|
/// | `bool` | `boolean` | |
/// | `integer` | `bigint` | |
/// | `double` | `double precision` | NaN, which PostgreSQL orders after every number and equal to itself |
/// | `text` | `text COLLATE "C"` | the text in NFC, compared by its UTF-8 bytes |
/// | `date` | `timestamptz` | to the microsecond, PostgreSQL's precision |
///
/// `nil` is `NULL`, which PostgreSQL orders first when ascending (`NULLS FIRST` is spelled
/// out), as `FieldValue` does. Values travel in PostgreSQL's binary format, so no number is
/// rounded on the way.
struct PostgresFieldColumn: Sendable, Equatable {
    /// The field's name, which is the column's.
    var name: String
    /// The field's type, recorded in the column's comment (``comment``).
    var type: FieldType

    /// The name as an SQL identifier.
    var quotedName: String { SQLDialect.quoted(name) }

    /// The column's type in `ALTER TABLE … ADD COLUMN`.
    var sqlType: String {
        switch type {
        case .bool: "boolean"
        case .integer: "bigint"
        case .double: "double precision"
        case .text: "text COLLATE \"C\""
        case .date: "timestamptz"
        }
    }

    /// The column's type as `format_type` writes it.
    var catalogType: String {
        switch type {
        case .bool: "boolean"
        case .integer: "bigint"
        case .double: "double precision"
        case .text: "text"
        case .date: "timestamp with time zone"
        }
    }

    /// The OID of the column's type.
    var typeOID: UInt32 { Self.typeOID(of: type) }

    /// The OID of the column type of a field of type `type`.
    static func typeOID(of type: FieldType) -> UInt32 {
        switch type {
        case .bool: 16
        case .integer: PostgresParameter.int8
        case .double: 701
        case .text: PostgresParameter.text
        case .date: 1184
        }
    }

    /// The OID of an array of the column's type.
    var arrayOID: UInt32 {
        switch type {
        case .bool: 1000
        case .integer: PostgresParameter.int8Array
        case .double: 1022
        case .text: PostgresParameter.textArray
        case .date: 1185
        }
    }

    /// The SQL type of an array of the column's values.
    var arrayType: String {
        switch type {
        case .bool: "boolean[]"
        case .integer: "bigint[]"
        case .double: "double precision[]"
        case .text: "text[]"
        case .date: "timestamptz[]"
        }
    }

    /// The comment that marks the column as the field's, and records its type: a column
    /// without it is someone else's, which the repository never drops or fills.
    var comment: String { Self.commentPrefix + type.rawValue }

    /// What every field column's comment starts with.
    static let commentPrefix = "swift-repositories field: "

    /// The names the table uses for itself, and PostgreSQL's system columns.
    static let reservedNames: Set<String> = [
        "seq", "id", "body", "version", "schema_version", "fields_version", "fields_declaration",
        "fields_behind",
        "xmin", "xmax", "cmin", "cmax", "ctid", "tableoid",
    ]

    /// The columns for the fields `Entity` declares, in declaration order; none when it
    /// declares none.
    ///
    /// - Throws: `RepositoryError` `rejected` when a declaration breaks the rules of
    ///   `validateQueryableFields()`, or names a field after one of the table's own columns.
    static func columns<Entity>(for type: Entity.Type) throws -> [PostgresFieldColumn] {
        try DeclaredFields.checked(
            type, reserving: reservedNames, by: "PostgresRepository",
            reservedDescription:
                "seq, id, body, version, schema_version, fields_version, fields_declaration and fields_behind are the table's own columns, and xmin, xmax, cmin, cmax, ctid and tableoid PostgreSQL's"
        ).map { PostgresFieldColumn(name: $0.name, type: $0.type) }
    }

    /// The index on the column in `table`: `TABLE.FIELD`, or, past PostgreSQL's 63 bytes, its
    /// first 54 bytes, `~` and a hash of the whole name, so no two fields' indexes share one.
    func indexName(in table: String) -> String {
        let full = "\(table).\(name)"
        guard full.utf8.count > 63 else { return full }
        var hash: UInt32 = 2_166_136_261
        for byte in full.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        return String(full.prefix(54)) + "~" + String(hash, radix: 16)
    }

    // MARK: Values

    /// `value` in PostgreSQL's binary format, or `nil` for `nil`: what a column holds, and
    /// what a parameter of the column's type sends.
    ///
    /// - Throws: `RepositoryError` `rejected` for a date PostgreSQL cannot hold (not finite,
    ///   or outside 4713 BC to 294276 AD).
    static func binary(_ value: FieldValue, field: String) throws -> [UInt8]? {
        switch value {
        case .null: return nil
        case .bool(let value): return [value ? 1 : 0]
        case .integer(let value): return PostgresParameter.bigEndian(value)
        case .double(let value):
            // One spelling each for zero and NaN, which compare equal however they are
            // spelled: `jsonb` keeps -0 as 0, so a body read back never says -0.
            let canonical = value == 0 ? 0 : value.isNaN ? Double.nan : value
            return PostgresParameter.bigEndian(canonical.bitPattern)
        case .text(let value): return Array(value.utf8)
        case .date(let date):
            guard let microseconds = microseconds(since2000: date) else {
                throw RepositoryError.rejected(
                    "The date \(date.timeIntervalSinceReferenceDate) s after 2001 in the field \(field) cannot be a PostgreSQL timestamptz",
                    recovery: "Use a date between 4713 BC and 294276 AD")
            }
            return PostgresParameter.bigEndian(microseconds)
        }
    }

    /// `date` as a `timestamptz` keeps it: whole microseconds since 2000-01-01 00:00:00 UTC,
    /// rounded to the nearest; `nil` when PostgreSQL cannot hold it (before 4713 BC, or from
    /// 294277 AD: its `MIN_TIMESTAMP` and `END_TIMESTAMP`).
    static func microseconds(since2000 date: Date) -> Int64? {
        let microseconds = ((date.timeIntervalSinceReferenceDate + 31_622_400) * 1_000_000).rounded()
        guard microseconds >= -211_813_488_000_000_000, microseconds < 9_223_371_331_200_000_000 else {
            return nil
        }
        return Int64(microseconds)
    }
}
