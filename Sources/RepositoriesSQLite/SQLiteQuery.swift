import Foundation
import Repositories

/// A `Query`'s conditions, and when it can its order and window, as one SQL statement over
/// the row table with bound parameters, so SQLite answers it from the field columns'
/// indexes (see ``SQLiteFieldColumn``). The conditions are written by
/// `SQLConditionBuilder`, which PostgreSQL shares.
///
/// The order and the window (`ORDER BY`, `LIMIT`, `OFFSET`) go into the statement only when
/// nothing runs after it in Swift: no closure filter, and every sort key a declared field.
/// Ties fall back to `seq`, the insertion order every store keeps.
struct SQLiteQuery: Sendable {
    /// `SELECT seq, id, body, crc, FIELDS… FROM … WHERE … [ORDER BY … LIMIT … OFFSET …]`: each
    /// row with its field columns, which reading checks against its body.
    var select: String
    /// `SELECT count(*) FROM … WHERE …`: the conditions' matches, before any window.
    var count: String
    /// The values of the conditions' parameters, in order: ``count``'s, and the first of
    /// ``select``'s.
    var parameters: [FieldValue]
    /// The limit and offset, ``select``'s last two parameters, when it pages.
    var window: [FieldValue] = []
    /// Whether the statement sorts by the query's keys, and pages: its rows are the answer.
    var isWindowed: Bool

    /// The SQL for `query` over `table`; `nil` when SQLite could do no more than read every
    /// row (no condition, and nothing to sort by or to page), or when the query binds more
    /// values than `variableLimit` allows: then the caller reads every row and runs the query
    /// in Swift.
    init?<Entity>(_ query: Query<Entity>, table: SQLiteTable, variableLimit: Int) {
        var builder = SQLConditionBuilder<Entity>(dialect: Self.dialect)
        let conditions = query.conditions.map { builder.sql(for: $0.node, negated: false) }
        let sortsInSQL = query.sortKeys.allSatisfy { $0.field != nil }
        isWindowed = query.predicates.isEmpty && sortsInSQL
        guard !conditions.isEmpty || (isWindowed && (!query.sortKeys.isEmpty || query.limit != nil)) else {
            return nil
        }
        let whereClause = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        var order = ""
        var limitClause = ""
        if isWindowed {
            let keys = query.sortKeys.compactMap { key in
                key.field.map {
                    SQLDialect.quoted($0.name) + (key.order == .ascending ? " ASC" : " DESC")
                }
            }
            order = " ORDER BY " + (keys + ["seq"]).joined(separator: ", ")
            // Bound, so a pager's every page runs one prepared statement.
            if query.limit != nil || query.offset > 0 {
                window = [.integer(Int64(query.limit ?? -1)), .integer(Int64(query.offset))]
                let (limit, offset) = (builder.placeholder(after: 1), builder.placeholder(after: 2))
                limitClause = " LIMIT \(limit) OFFSET \(offset)"
            }
        } else {
            order = " ORDER BY seq"
        }
        guard builder.isComplete, builder.fitsOneStatement,
            builder.parameters.count + window.count <= variableLimit
        else {
            return nil
        }
        let from = " FROM \(table.quotedName)\(whereClause)"
        let fields = table.fields.map { ", " + $0.quotedName }.joined()
        select = "SELECT seq, id, body, crc\(fields)\(from)\(order)\(limitClause)"
        count = "SELECT count(*)\(from)"
        parameters = builder.parameters.map(\.value)
    }

    /// SQLite's spelling of the conditions' SQL.
    static let dialect = SQLDialect(
        placeholder: { "?\($0)" }, alwaysTrue: "1", alwaysFalse: "0", differsFrom: "IS NOT")

    /// Binds ``parameters`` to `statement`, and ``window`` after them when `paging` (for
    /// ``select``).
    func bind(to statement: SQLiteStatement, paging: Bool) throws {
        for (offset, parameter) in (paging ? parameters + window : parameters).enumerated() {
            let index = Int32(offset + 1)
            try statement.bind(field: parameter, at: index)
        }
    }
}
