import Foundation
import Repositories

/// A `Query`'s conditions, and when it can its order and window, as one SQL statement over
/// the row table with bound parameters, so SQLite answers it from the field columns'
/// indexes (see ``SQLiteFieldColumn``).
///
/// Conditions become SQL in the order every store uses (`FieldValue`'s): `nil` before every
/// value, NaN after every number, text by its UTF-8 bytes. SQL's `NULL` is neither true nor
/// false, so the translation never leaves a `NOT` above a comparison that may be `NULL`: a
/// negation is pushed down to the comparisons and each is replaced by its complement
/// (`NOT (a > 1)` is `a <= 1 OR a IS NULL`), and in what is left a `NULL` answers as false
/// would. A prefix is a range of bytes (`name >= 'Al' AND name < 'Am'`), never `LIKE`, which
/// ignores ASCII case and reads `%` and `_` as patterns.
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
    var parameters: [Parameter]
    /// The limit and offset, ``select``'s last two parameters, when it pages.
    var window: [Parameter] = []
    /// Whether the statement sorts by the query's keys, and pages: its rows are the answer.
    var isWindowed: Bool

    /// A bound value: a field's value, or text given as its UTF-8 bytes (a prefix's upper
    /// bound, which need not be valid UTF-8).
    enum Parameter: Sendable {
        case value(FieldValue)
        case textBytes(Data)
    }

    /// The SQL for `query` over `table`; `nil` when SQLite could do no more than read every
    /// row (no condition, and nothing to sort by or to page), or when the query binds more
    /// values than `variableLimit` allows: then the caller reads every row and runs the query
    /// in Swift.
    init?<Entity>(_ query: Query<Entity>, table: SQLiteTable, variableLimit: Int) {
        var builder = Builder<Entity>()
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
                    SQLiteFieldColumn.quoted($0.name) + (key.order == .ascending ? " ASC" : " DESC")
                }
            }
            order = " ORDER BY " + (keys + ["seq"]).joined(separator: ", ")
            // Bound, so a pager's every page runs one prepared statement.
            if query.limit != nil || query.offset > 0 {
                window = [.value(.integer(Int64(query.limit ?? -1))), .value(.integer(Int64(query.offset)))]
                let first = builder.parameters.count + 1
                limitClause = " LIMIT ?\(first) OFFSET ?\(first + 1)"
            }
        } else {
            order = " ORDER BY seq"
        }
        guard builder.isComplete, builder.terms <= Self.largestTermCount,
            builder.deepest <= Self.deepestNesting,
            builder.parameters.count + window.count <= variableLimit
        else {
            return nil
        }
        let from = " FROM \(table.quotedName)\(whereClause)"
        let fields = table.fields.map { ", " + $0.quotedName }.joined()
        select = "SELECT seq, id, body, crc\(fields)\(from)\(order)\(limitClause)"
        count = "SELECT count(*)\(from)"
        parameters = builder.parameters
    }

    /// The most comparisons one statement holds: SQLite refuses an expression more than 1,000
    /// deep, which a long `AND` or `OR` of terms becomes; a query with more runs in Swift.
    static let largestTermCount = 200
    /// The most groups one statement nests inside each other: SQLite's parser overflows its
    /// stack on a few dozen nested parentheses (`any(all(any(…)))`), so deeper conditions
    /// run in Swift.
    static let deepestNesting = 12

    /// Binds ``parameters`` to `statement`, and ``window`` after them when `paging` (for
    /// ``select``).
    func bind(to statement: SQLiteStatement, paging: Bool) throws {
        for (offset, parameter) in (paging ? parameters + window : parameters).enumerated() {
            let index = Int32(offset + 1)
            switch parameter {
            case .value(let value): try statement.bind(field: value, at: index)
            case .textBytes(let bytes): try statement.bindText(bytes, at: index)
            }
        }
    }

    /// Turns conditions into SQL, collecting their parameters in order.
    private struct Builder<Entity> {
        var parameters: [Parameter] = []
        /// False once a condition read a property the entity does not declare, which
        /// `Query.validate()` refuses before any of this runs.
        var isComplete = true
        /// How many comparisons the conditions hold.
        var terms = 0
        /// How deep the groups being built nest, and the deepest they nested.
        var depth = 0
        var deepest = 0

        /// `node`, or its negation, as SQL in which `NULL` answers as false would.
        mutating func sql(for node: FieldConditionNode<Entity>, negated: Bool) -> String {
            switch node {
            case .and(let nodes):
                return join(nodes, with: negated ? "OR" : "AND", negated: negated)
            case .or(let nodes):
                return join(nodes, with: negated ? "AND" : "OR", negated: negated)
            case .not(let inner):
                return sql(for: inner, negated: !negated)
            case .compare(let operand, let comparison, let value):
                guard let field = declared(operand) else { return "0" }
                return compare(field, negated ? comparison.complement : comparison, value)
            case .oneOf(let operand, let values):
                guard let field = declared(operand) else { return "0" }
                return oneOf(field, values, negated: negated)
            case .prefix(let operand, let prefix):
                guard let field = declared(operand) else { return "0" }
                return self.prefix(field, prefix, negated: negated)
            }
        }

        private mutating func declared(_ operand: FieldOperand<Entity>) -> QueryableField<Entity>? {
            terms += 1
            if operand.field == nil { isComplete = false }
            return operand.field
        }

        private mutating func join(_ nodes: [FieldConditionNode<Entity>], with joiner: String, negated: Bool)
            -> String
        {
            // An empty AND is true, an empty OR false; negated, they swap, as the joiner has.
            guard !nodes.isEmpty else { return joiner == "AND" ? "1" : "0" }
            // A group of one needs no parentheses, and adds no depth.
            if nodes.count == 1 { return sql(for: nodes[0], negated: negated) }
            depth += 1
            deepest = max(deepest, depth)
            defer { depth -= 1 }
            return "(" + nodes.map { sql(for: $0, negated: negated) }.joined(separator: " \(joiner) ") + ")"
        }

        private mutating func parameter(_ value: FieldValue) -> String {
            parameters.append(.value(value))
            return "?\(parameters.count)"
        }

        private mutating func compare(
            _ field: QueryableField<Entity>, _ comparison: FieldComparison, _ value: FieldValue
        ) -> String {
            let column = SQLiteFieldColumn.quoted(field.name)
            // Only a column that may be NULL needs the cases where NULL answers true.
            let orNull = field.isOptional ? " OR \(column) IS NULL" : ""
            if value.isNull {
                switch comparison {
                case .equal, .lessOrEqual: return "\(column) IS NULL"
                case .notEqual, .greater: return "\(column) IS NOT NULL"
                case .less: return "0"
                case .greaterOrEqual: return "1"
                }
            }
            switch comparison {
            case .equal: return "\(column) = \(parameter(value))"
            case .notEqual: return "\(column) IS NOT \(parameter(value))"
            case .less: return "(\(column) < \(parameter(value))\(orNull))"
            case .lessOrEqual: return "(\(column) <= \(parameter(value))\(orNull))"
            case .greater: return "\(column) > \(parameter(value))"
            case .greaterOrEqual: return "\(column) >= \(parameter(value))"
            }
        }

        private mutating func oneOf(_ field: QueryableField<Entity>, _ values: [FieldValue], negated: Bool)
            -> String
        {
            let column = SQLiteFieldColumn.quoted(field.name)
            let includesNull = values.contains(where: \.isNull)
            var listed = values.filter { !$0.isNull }
            guard !listed.isEmpty else {
                if includesNull { return "\(column) IS \(negated ? "NOT " : "")NULL" }
                return negated ? "1" : "0"
            }
            // A list of a power-of-two length (the last value repeated), so the statements
            // come in a few shapes the connection's cache keeps.
            var size = 1
            while size < listed.count { size *= 2 }
            listed += repeatElement(listed[listed.count - 1], count: size - listed.count)
            let list = listed.map { parameter($0) }.joined(separator: ", ")
            if negated {
                // NOT IN is NULL for a NULL column: it is in the answer unless NULL was listed.
                return includesNull
                    ? "(\(column) IS NOT NULL AND \(column) NOT IN (\(list)))"
                    : "(\(column) IS NULL OR \(column) NOT IN (\(list)))"
            }
            return includesNull ? "(\(column) IN (\(list)) OR \(column) IS NULL)" : "\(column) IN (\(list))"
        }

        private mutating func prefix(_ field: QueryableField<Entity>, _ prefix: String, negated: Bool)
            -> String
        {
            let column = SQLiteFieldColumn.quoted(field.name)
            guard let upper = Self.upperBound(of: prefix) else {
                // Every text starts with "": the prefix holds for every value but NULL.
                return "\(column) IS \(negated ? "" : "NOT ")NULL"
            }
            let lower = parameter(.text(prefix))
            parameters.append(.textBytes(upper))
            let upperParameter = "?\(parameters.count)"
            return negated
                ? "(\(column) IS NULL OR \(column) < \(lower) OR \(column) >= \(upperParameter))"
                : "(\(column) >= \(lower) AND \(column) < \(upperParameter))"
        }

        /// The smallest byte string after every text starting with `prefix`: its UTF-8 bytes
        /// with the last one raised by one (UTF-8 never holds 0xFF, so it never overflows);
        /// `nil` for the empty prefix.
        static func upperBound(of prefix: String) -> Data? {
            var bytes = Array(prefix.utf8)
            guard let last = bytes.popLast() else { return nil }
            bytes.append(last + 1)
            return Data(bytes)
        }
    }
}

extension FieldComparison {
    /// The comparison that holds exactly where this one does not, in `FieldValue`'s total
    /// order: `<` for `>=`, `!=` for `==`.
    var complement: FieldComparison {
        switch self {
        case .equal: .notEqual
        case .notEqual: .equal
        case .less: .greaterOrEqual
        case .lessOrEqual: .greater
        case .greater: .lessOrEqual
        case .greaterOrEqual: .less
        }
    }
}
