import Foundation
import Repositories

/// A `Query`'s conditions, and when it can its order and window, as one prepared statement
/// over the entity table, so PostgreSQL answers it from the field columns' indexes (see
/// ``PostgresFieldColumn``). The conditions are written by `SQLConditionBuilder`, which
/// SQLite shares.
///
/// The order and the window (`ORDER BY`, `LIMIT`, `OFFSET`) go into the statement only when
/// nothing runs after it in Swift: no closure filter, and every sort key a declared field.
/// `NULL` sorts first when ascending and last when descending, as `FieldValue` orders
/// `nil`, which the indexes (`NULLS FIRST`) serve in both directions; ties fall back to
/// `seq`, the insertion order every store keeps.
struct PostgresQuery: Sendable {
    /// `SELECT behind, id, body, schema_version, FIELDS…, current FROM … WHERE … [ORDER BY …
    /// LIMIT … OFFSET …]`: whether any row of the table is behind its body (every result row
    /// says it, and a query with no match answers one row of `NULL`s saying it), then each
    /// row with its field columns, which reading checks against its body, and whether they
    /// are current.
    var select: PostgresStatement
    /// `SELECT behind, count(*) FROM … WHERE …`: the conditions' matches, before any window.
    var count: PostgresStatement
    /// The conditions' parameters: ``count``'s, and the first of ``select``'s.
    var parameters: [PostgresParameter]
    /// The limit (`NULL` for none) and offset, ``select``'s last two parameters, when it pages.
    var window: [PostgresParameter] = []
    /// Whether the statement sorts by the query's keys, and pages: its rows are the answer.
    var isWindowed: Bool

    /// PostgreSQL's spelling of the conditions' SQL.
    static let dialect = SQLDialect(
        placeholder: { "$\($0)" }, alwaysTrue: "true", alwaysFalse: "false", differsFrom: "IS DISTINCT FROM")

    /// The statement for `query` over `table`; `nil` when PostgreSQL could do no more than
    /// read every row (no condition, and nothing to sort by or to page), or the conditions
    /// are too many: then the caller reads every row and runs the query in Swift.
    ///
    /// - Throws: `rejected` for a date in the conditions that `timestamptz` cannot hold.
    init?<Entity>(_ query: Query<Entity>, table: PostgresTable) throws {
        guard table.queriesRunInSQL else { return nil }
        var builder = SQLConditionBuilder<Entity>(dialect: Self.dialect)
        let conditions = query.conditions.map { builder.sql(for: $0.node, negated: false) }
        isWindowed = query.predicates.isEmpty && query.sortKeys.allSatisfy { $0.field != nil }
        guard !conditions.isEmpty || (isWindowed && (!query.sortKeys.isEmpty || query.limit != nil)) else {
            return nil
        }
        guard builder.isComplete, builder.fitsOneStatement else { return nil }
        let whereClause = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        // The order, spelled for the rows' own query and for the one around it (`q.`).
        var keys: [String] = []
        var limitClause = ""
        if isWindowed {
            keys = query.sortKeys.compactMap { key in
                key.field.map {
                    SQLDialect.quoted($0.name)
                        + (key.order == .ascending ? " ASC NULLS FIRST" : " DESC NULLS LAST")
                }
            }
            // Bound, so a pager's every page runs one prepared statement.
            if query.limit != nil || query.offset > 0 {
                window = [
                    query.limit.map { PostgresParameter(bytes: PostgresParameter.bigEndian(Int64($0))) }
                        ?? PostgresParameter.null,
                    PostgresParameter(bytes: PostgresParameter.bigEndian(Int64(query.offset))),
                ]
                let (limit, offset) = (builder.placeholder(after: 1), builder.placeholder(after: 2))
                limitClause = " LIMIT \(limit) OFFSET \(offset)"
            }
        }
        let order = " ORDER BY " + (keys + ["seq"]).joined(separator: ", ")
        let outerOrder = " ORDER BY " + (keys + ["seq"]).map { "q." + $0 }.joined(separator: ", ")
        // PostgreSQL takes at most 65,535 parameters in a statement.
        guard builder.parameters.count + window.count <= 65_535 else { return nil }
        parameters = try builder.parameters.map {
            PostgresParameter(nullable: try PostgresFieldColumn.binary($0.value, field: $0.field))
        }
        let types = builder.parameters.map { PostgresFieldColumn.typeOID(of: $0.type) }
        let from = " FROM \(table.quotedName)\(whereClause)"
        let fields = table.fields.map { ", " + $0.quotedName }.joined()
        // One round trip: whether rows are behind their body (an index scan of an empty
        // partial index) comes with the answer, even when nothing matches.
        let behind =
            table.fields.isEmpty
            ? "SELECT false AS behind"
            : "SELECT EXISTS (SELECT 1 FROM \(table.quotedName) WHERE \(table.staleCondition)) AS behind"
        let current = table.fields.isEmpty ? "true" : "NOT \(table.staleCondition)"
        let rows =
            "SELECT id, \(table.bodyColumns)\(fields), \(current) AS current, seq\(from)\(order)\(limitClause)"
        let selectSQL =
            "SELECT s.behind, q.* FROM (\(behind)) s LEFT JOIN LATERAL (\(rows)) q ON true\(outerOrder)"
        let countSQL = "SELECT (\(behind)), count(*)\(from)"
        let windowTypes = window.isEmpty ? [] : [PostgresParameter.int8, PostgresParameter.int8]
        select = table.statement(
            "query_" + Self.fingerprint(selectSQL), selectSQL, types + windowTypes)
        count = table.statement("count_" + Self.fingerprint(countSQL), countSQL, types)
    }

    /// A name for the statement `sql` among a connection's prepared statements: its length
    /// and a 64-bit FNV-1a hash of its text.
    static func fingerprint(_ sql: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in sql.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return "\(sql.utf8.count)_" + String(hash, radix: 16)
    }
}
