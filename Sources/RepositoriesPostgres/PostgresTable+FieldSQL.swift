import Repositories

/// The pieces of SQL by which every write statement keeps the field columns
/// (``PostgresFieldColumn``) in step with the body it writes, in the same statement. Each is
/// empty when the entity declares no fields, so the table and its statements stay as they
/// were.
///
/// Beside the fields, `fields_version` records the row's `version` its columns were written
/// for, and `fields_declaration` the declaration that wrote them (``declarationStamp``).
/// Every statement here sets both; a writer that does not know the columns (an earlier
/// release, or a program of your own), or declares other fields, leaves them behind, and a
/// query finds such rows (``staleCondition``) and fills their columns before it runs
/// (``PostgresFieldFiller``).
extension PostgresTable {
    /// A number for the declared fields' names and types, in order: rows whose
    /// `fields_declaration` differs were written by a declaration with other fields.
    var declarationStamp: Int64 {
        var hash: UInt32 = 2_166_136_261
        for byte in fields.map({ "\($0.name):\($0.type.rawValue)" }).joined(separator: ",").utf8 {
            hash = (hash ^ UInt32(byte)) &* 16_777_619
        }
        return Int64(hash)
    }

    /// The rows whose field columns are behind their body, or were written for another
    /// declaration, as an SQL condition. `fields_behind` is a stored column, `fields_version
    /// IS DISTINCT FROM version`: the planner cannot estimate a comparison of two columns,
    /// but it keeps statistics of one, so it finds the few rows behind through their
    /// partial index instead of scanning the table to find none.
    var staleCondition: String {
        "(fields_behind OR fields_declaration IS DISTINCT FROM \(declarationStamp))"
    }

    /// `, "a", "b", fields_version, fields_declaration`: the columns an insert names after
    /// `schema_version`.
    var fieldInsertColumns: String {
        guard !fields.isEmpty else { return "" }
        return fields.map { ", " + $0.quotedName }.joined() + ", fields_version, fields_declaration"
    }

    /// `, v0, v1, 1, STAMP`: the values of ``fieldInsertColumns`` for a new row, the fields'
    /// from `values` (SQL expressions, in the fields' order).
    func fieldInsertValues(_ values: [String]) -> String {
        guard !fields.isEmpty else { return "" }
        return values.map { ", " + $0 }.joined() + ", 1, \(declarationStamp)"
    }

    /// The placeholders of the fields' parameters, numbered from `first`.
    func fieldPlaceholders(from first: Int) -> [String] {
        fields.indices.map { "$\(first + $0)" }
    }

    /// `, "a" = v0, fields_version = ROW.version + 1, fields_declaration = STAMP`: the
    /// assignments of a write that replaces the row `row` (whose `version` it raises by one),
    /// the fields' values from `values`.
    func fieldAssignments(_ values: [String], row: String) -> String {
        guard !fields.isEmpty else { return "" }
        return zip(fields, values).map { ", \($0.quotedName) = \($1)" }.joined()
            + ", fields_version = \(row).version + 1, fields_declaration = \(declarationStamp)"
    }

    /// ``fieldAssignments(_:row:)`` from the proposed row of an `ON CONFLICT DO UPDATE`.
    var fieldAssignmentsFromExcluded: String {
        fieldAssignments(fields.map { "excluded." + $0.quotedName }, row: quotedName)
    }

    /// `, $3::double precision[], $4::text[]`: the fields' arrays as more arguments of
    /// `unnest`, numbered from `first`.
    func fieldUnnestArguments(from first: Int) -> String {
        fields.enumerated().map { ", $\(first + $0)::\($1.arrayType)" }.joined()
    }

    /// `, f0, f1`: the names of ``fieldUnnestArguments(from:)``'s columns in `unnest`'s alias.
    var fieldUnnestAliases: String {
        fields.indices.map { ", f\($0)" }.joined()
    }

    /// `f0`, `f1`… with `prefix` (a table alias and a dot, or nothing).
    func fieldUnnestColumns(_ prefix: String = "") -> [String] {
        fields.indices.map { "\(prefix)f\($0)" }
    }

    /// The OIDs of the fields' parameters, in order.
    var fieldTypes: [UInt32] { fields.map(\.typeOID) }

    /// The OIDs of the fields' arrays, in order.
    var fieldArrayTypes: [UInt32] { fields.map(\.arrayOID) }

    /// One row's field columns (``PostgresEncodedRow/fields``) as parameters, in the fields'
    /// order.
    func fieldParameters(_ columns: [[UInt8]?]) -> [PostgresParameter] {
        columns.map(PostgresParameter.init(nullable:))
    }

    /// Many rows' field columns as one array parameter per field, in the rows' order.
    func fieldArrayParameters(_ rows: [[[UInt8]?]]) -> [PostgresParameter] {
        fields.enumerated().map { index, field in
            PostgresParameter(array: rows.map { $0[index] }, elementType: field.typeOID)
        }
    }
}
