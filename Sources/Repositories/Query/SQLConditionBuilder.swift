/// How one SQL database spells what ``SQLConditionBuilder`` writes: its parameters, its
/// truth values, and its null-safe "differs from".
package struct SQLDialect: Sendable {
    /// The placeholder of the `number`th parameter, from 1: `?1` in SQLite, `$1` in PostgreSQL.
    package var placeholder: @Sendable (Int) -> String
    /// An expression that is always true: `1` in SQLite, `true` in PostgreSQL.
    package var alwaysTrue: String
    /// An expression that is always false.
    package var alwaysFalse: String
    /// The comparison that holds when two values differ, `NULL` included: `IS NOT` in
    /// SQLite, `IS DISTINCT FROM` in PostgreSQL.
    package var differsFrom: String

    package init(
        placeholder: @escaping @Sendable (Int) -> String, alwaysTrue: String, alwaysFalse: String,
        differsFrom: String
    ) {
        self.placeholder = placeholder
        self.alwaysTrue = alwaysTrue
        self.alwaysFalse = alwaysFalse
        self.differsFrom = differsFrom
    }

    /// A declared field's name as an SQL identifier. Field names are lowercase ASCII letters,
    /// digits and underscores (`QueryableEntity.validateQueryableFields()`), but may be SQL
    /// keywords.
    package static func quoted(_ name: String) -> String { "\"\(name)\"" }
}

/// A bound value of a statement ``SQLConditionBuilder`` wrote: a value of the field `field`,
/// of type `type` (a prefix's bounds are text).
package struct SQLConditionParameter: Sendable {
    package var value: FieldValue
    package var type: FieldType
    package var field: String
}

/// Turns a query's conditions into SQL over the field columns (one column per declared
/// field, named after it), collecting their parameters in order: shared by the SQL stores.
///
/// Conditions become SQL in the order every store uses (``FieldValue``'s): `nil` before every
/// value, NaN after every number, text by its code points, which the column's collation
/// (SQLite's `BINARY`, PostgreSQL's `"C"`) compares as UTF-8 bytes. SQL's `NULL` is neither
/// true nor false, so the SQL never leaves a `NOT` above a comparison that may be `NULL`: a
/// negation is pushed down to the comparisons and each is replaced by its complement
/// (`NOT (a > 1)` is `a <= 1 OR a IS NULL`), and in what is left a `NULL` answers as false
/// would. A prefix is a range (`name >= 'Al' AND name < 'Am'`), never `LIKE`, which reads `%`
/// and `_` as patterns (and in SQLite ignores ASCII case).
package struct SQLConditionBuilder<Entity> {
    /// The parameters, in the order of their placeholders.
    package private(set) var parameters: [SQLConditionParameter] = []
    /// False once a condition read a property the entity does not declare, which
    /// `Query.validate()` refuses before any of this runs.
    package private(set) var isComplete = true
    /// How many comparisons the conditions hold.
    package private(set) var terms = 0
    /// The deepest the groups nested.
    package private(set) var deepest = 0
    private var depth = 0

    /// The most comparisons one statement holds: SQLite refuses an expression more than 1,000
    /// deep, which a long `AND` or `OR` of terms becomes.
    package static var largestTermCount: Int { 200 }
    /// The most groups one statement nests inside each other: SQLite's parser overflows its
    /// stack on a few dozen nested parentheses (`any(all(any(…)))`).
    package static var deepestNesting: Int { 12 }

    /// Whether the conditions are small enough for one statement (``largestTermCount``,
    /// ``deepestNesting``); a store runs larger ones in Swift. PostgreSQL takes the same
    /// bounds, so every SQL store splits a query the same way.
    package var fitsOneStatement: Bool {
        terms <= Self.largestTermCount && deepest <= Self.deepestNesting
    }
    private let dialect: SQLDialect

    package init(dialect: SQLDialect) {
        self.dialect = dialect
    }

    /// `node`, or its negation, as SQL in which `NULL` answers as false would.
    package mutating func sql(for node: FieldConditionNode<Entity>, negated: Bool) -> String {
        switch node {
        case .and(let nodes):
            return join(nodes, with: negated ? "OR" : "AND", negated: negated)
        case .or(let nodes):
            return join(nodes, with: negated ? "AND" : "OR", negated: negated)
        case .not(let inner):
            return sql(for: inner, negated: !negated)
        case .compare(let operand, let comparison, let value):
            guard let field = declared(operand) else { return dialect.alwaysFalse }
            return compare(field, negated ? comparison.complement : comparison, value)
        case .oneOf(let operand, let values):
            guard let field = declared(operand) else { return dialect.alwaysFalse }
            return oneOf(field, values, negated: negated)
        case .prefix(let operand, let prefix):
            guard let field = declared(operand) else { return dialect.alwaysFalse }
            return self.prefix(field, prefix, negated: negated)
        }
    }

    /// The placeholder of a parameter that follows the conditions' own, such as a limit.
    package mutating func placeholder(after extra: Int) -> String {
        dialect.placeholder(parameters.count + extra)
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
        guard !nodes.isEmpty else { return joiner == "AND" ? dialect.alwaysTrue : dialect.alwaysFalse }
        // A group of one needs no parentheses, and adds no depth.
        if nodes.count == 1 { return sql(for: nodes[0], negated: negated) }
        depth += 1
        deepest = max(deepest, depth)
        defer { depth -= 1 }
        return "(" + nodes.map { sql(for: $0, negated: negated) }.joined(separator: " \(joiner) ") + ")"
    }

    private mutating func parameter(_ value: FieldValue, _ field: QueryableField<Entity>) -> String {
        parameters.append(SQLConditionParameter(value: value, type: field.type, field: field.name))
        return dialect.placeholder(parameters.count)
    }

    private mutating func compare(
        _ field: QueryableField<Entity>, _ comparison: FieldComparison, _ value: FieldValue
    ) -> String {
        let column = SQLDialect.quoted(field.name)
        // Only a column that may be NULL needs the cases where NULL answers true.
        let orNull = field.isOptional ? " OR \(column) IS NULL" : ""
        if value.isNull {
            switch comparison {
            case .equal, .lessOrEqual: return "\(column) IS NULL"
            case .notEqual, .greater: return "\(column) IS NOT NULL"
            case .less: return dialect.alwaysFalse
            case .greaterOrEqual: return dialect.alwaysTrue
            }
        }
        let value = parameter(value, field)
        switch comparison {
        case .equal: return "\(column) = \(value)"
        case .notEqual: return "\(column) \(dialect.differsFrom) \(value)"
        case .less: return "(\(column) < \(value)\(orNull))"
        case .lessOrEqual: return "(\(column) <= \(value)\(orNull))"
        case .greater: return "\(column) > \(value)"
        case .greaterOrEqual: return "\(column) >= \(value)"
        }
    }

    private mutating func oneOf(_ field: QueryableField<Entity>, _ values: [FieldValue], negated: Bool)
        -> String
    {
        let column = SQLDialect.quoted(field.name)
        let includesNull = values.contains(where: \.isNull)
        var listed = values.filter { !$0.isNull }
        guard !listed.isEmpty else {
            if includesNull { return "\(column) IS \(negated ? "NOT " : "")NULL" }
            return negated ? dialect.alwaysTrue : dialect.alwaysFalse
        }
        // A list of a power-of-two length (the last value repeated), so the statements
        // come in a few shapes the connection's cache keeps.
        var size = 1
        while size < listed.count { size *= 2 }
        listed += repeatElement(listed[listed.count - 1], count: size - listed.count)
        let list = listed.map { parameter($0, field) }.joined(separator: ", ")
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
        let column = SQLDialect.quoted(field.name)
        guard !prefix.isEmpty else {
            // Every text starts with "": the prefix holds for every value but NULL.
            return "\(column) IS \(negated ? "" : "NOT ")NULL"
        }
        let lower = parameter(.text(prefix), field)
        guard let bound = FieldValue.prefixUpperBound(prefix) else {
            // Only U+10FFFF…: every text at or after the prefix starts with it.
            return negated ? "(\(column) IS NULL OR \(column) < \(lower))" : "\(column) >= \(lower)"
        }
        let upper = parameter(.text(bound), field)
        return negated
            ? "(\(column) IS NULL OR \(column) < \(lower) OR \(column) >= \(upper))"
            : "(\(column) >= \(lower) AND \(column) < \(upper))"
    }
}

extension FieldComparison {
    /// The comparison that holds exactly where this one does not, in `FieldValue`'s total
    /// order: `<` for `>=`, `!=` for `==`.
    package var complement: FieldComparison {
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
