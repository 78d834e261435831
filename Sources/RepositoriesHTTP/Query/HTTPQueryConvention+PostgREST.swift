import Foundation
import Repositories

extension HTTPQueryConvention {
    /// PostgREST's horizontal filtering (`price=lt.500`, `or=(a.is.null,a.gte.3)`,
    /// `name=like.Ab*`), ordering (`order=price.desc.nullslast`) and `offset`/`limit`, as
    /// Supabase serves it. Every condition is written, `&&`, `||` and `!` included, with Swift's
    /// `nil` kept (`rank < 3` also selects a `NULL` rank, as `nil < 3` holds in Swift).
    ///
    /// - Parameters:
    ///   - codePointTextOrder: whether the columns compare text by code point (`COLLATE "C"`),
    ///     as Swift does; only then are text comparisons (`<`…), text sorts and prefixes with
    ///   `*`, `%`, `_` or `\` sent. Equality, `in` and other prefixes are sent either way.
    ///   - tiebreak: the order ties keep, appended to every `order` (`created_at`): the
    ///     column ``HTTPRepository/fetchAll()`` reads in, if any.
    ///   - maximumLimit: rows per request at most: the server's `max-rows`.
    public static func postgREST(
        codePointTextOrder: Bool = false, tiebreak: [String] = [], maximumLimit: Int = 1_000
    )
        -> Self
    {
        var convention = Self(maximumLimit: maximumLimit)
        let writer = PostgRESTConditionWriter(codePointTextOrder: codePointTextOrder)
        convention.condition = { condition in writer.items(for: condition) }
        convention.combine = { items in PostgRESTConditionWriter.joiningTrees(items) }
        convention.repeatedNamesAreAllRequired = true
        convention.reservedNames = [
            "order", "limit", "offset", "select", "or", "and", "not", "on_conflict", "columns",
        ]
        convention.order = { keys in
            var terms: [String] = []
            for key in keys {
                if key.field.type == .text && !codePointTextOrder { return nil }
                terms.append(key.field.name + (key.descending ? ".desc.nullslast" : ".asc.nullsfirst"))
            }
            terms += tiebreak
            return terms.isEmpty ? [] : [URLQueryItem(name: "order", value: terms.joined(separator: ","))]
        }
        return convention
    }
}

/// Writes conditions in PostgREST's filter syntax.
struct PostgRESTConditionWriter: Sendable {
    /// Whether text ranges may be sent.
    let codePointTextOrder: Bool

    /// A filter, or a logical tree of them.
    indirect enum Term {
        /// `column=op.value`, written `column.op.value` inside a tree, where a value that holds
        /// PostgREST's syntax is put in double quotes unless `quoted` is off (a list, `null`).
        case filter(column: String, operation: String, value: String, quoted: Bool)
        /// `and(…)` or `or(…)`.
        case tree(any: Bool, [Term])

        /// The term inside a logical tree.
        var nested: String {
            switch self {
            case .filter(let column, let operation, let value, let quoted):
                column + "." + operation + "." + (quoted ? PostgREST.quoted(value) : value)
            case .tree(let any, let terms):
                (any ? "or(" : "and(") + terms.map(\.nested).joined(separator: ",") + ")"
            }
        }

        /// The term as top-level parameters.
        var items: [URLQueryItem] {
            switch self {
            case .filter(let column, let operation, let value, _):
                [URLQueryItem(name: column, value: operation + "." + value)]
            case .tree(false, let terms):
                terms.flatMap(\.items)
            case .tree(true, let terms):
                [URLQueryItem(name: "or", value: "(" + terms.map(\.nested).joined(separator: ",") + ")")]
            }
        }
    }

    /// `items` with its logical trees (`or=(…)`, `and=(…)`) joined into one `and=(…)` when
    /// there are several, since a query names each parameter once.
    static func joiningTrees(_ items: [URLQueryItem]) -> [URLQueryItem] {
        let trees = items.filter { $0.name == "or" || $0.name == "and" }
        guard trees.count > 1 else { return items }
        let joined = trees.map { $0.name + ($0.value ?? "()") }.joined(separator: ",")
        return items.filter { $0.name != "or" && $0.name != "and" } + [
            URLQueryItem(name: "and", value: "(" + joined + ")")
        ]
    }

    /// The parameters of `condition`, or `nil` when part of it cannot be written exactly.
    func items(for condition: HTTPQueryCondition) -> [URLQueryItem]? {
        term(condition.negationsPushedDown).map(\.items)
    }

    private func term(_ condition: HTTPQueryCondition) -> Term? {
        switch condition {
        case .compare(let field, let comparison, let value):
            return compare(field, comparison, value)
        case .isIn(let field, let values):
            return oneOf(field, values, negated: false)
        case .not(.isIn(let field, let values)):
            return oneOf(field, values, negated: true)
        case .hasPrefix(let field, let prefix):
            return self.prefix(field, prefix, negated: false)
        case .not(.hasPrefix(let field, let prefix)):
            return self.prefix(field, prefix, negated: true)
        case .all(let conditions), .any(let conditions):
            var terms: [Term] = []
            for condition in conditions {
                guard let term = term(condition) else { return nil }
                terms.append(term)
            }
            // An empty `any` (false) or `all` (true) has no spelling in PostgREST's trees.
            guard !terms.isEmpty else { return nil }
            if case .any = condition { return .tree(any: true, terms) }
            return .tree(any: false, terms)
        case .not:
            return nil  // pushed down: only isIn and hasPrefix are left under a not
        }
    }

    /// Always false: a tree no row meets.
    private func never(_ field: HTTPQueryField) -> Term {
        .tree(any: false, [isNull(field.name, true), isNull(field.name, false)])
    }

    private func isNull(_ column: String, _ null: Bool) -> Term {
        .filter(column: column, operation: null ? "is" : "not.is", value: "null", quoted: false)
    }

    /// `term`, or `term || field is nil` for a field that may be `nil`.
    private func orNil(_ term: Term, _ field: HTTPQueryField) -> Term {
        field.isOptional ? .tree(any: true, [term, isNull(field.name, true)]) : term
    }

    private func compare(_ field: HTTPQueryField, _ comparison: HTTPQueryOperator, _ value: FieldValue)
        -> Term?
    {
        let column = field.name
        if value.isNull {
            switch comparison {
            case .equal, .lessOrEqual: return isNull(column, true)
            case .notEqual, .greater: return isNull(column, false)
            case .less: return never(field)
            case .greaterOrEqual: return .tree(any: true, [isNull(column, true), isNull(column, false)])
            }
        }
        guard let text = value.parameterText else { return nil }
        if case .text = value, comparison != .equal, comparison != .notEqual, !codePointTextOrder {
            return nil
        }
        func filter(_ operation: String) -> Term {
            .filter(column: column, operation: operation, value: text, quoted: true)
        }
        switch comparison {
        case .equal: return filter("eq")
        case .notEqual: return orNil(filter("neq"), field)
        case .less: return orNil(filter("lt"), field)
        case .lessOrEqual: return orNil(filter("lte"), field)
        case .greater: return filter("gt")
        case .greaterOrEqual: return filter("gte")
        }
    }

    private func oneOf(_ field: HTTPQueryField, _ values: [FieldValue], negated: Bool) -> Term? {
        var texts: [String] = []
        var includesNil = false
        for value in values {
            if value.isNull {
                includesNil = true
            } else {
                guard let text = value.parameterText else { return nil }
                texts.append(text)
            }
        }
        let column = field.name
        let list = Term.filter(
            column: column, operation: negated ? "not.in" : "in",
            value: "(" + texts.map(PostgREST.quoted).joined(separator: ",") + ")", quoted: false)
        switch (negated, texts.isEmpty, includesNil) {
        case (false, true, false): return never(field)
        case (false, true, true): return isNull(column, true)
        case (false, false, false): return list
        case (false, false, true): return .tree(any: true, [list, isNull(column, true)])
        case (true, true, false): return .tree(any: true, [isNull(column, true), isNull(column, false)])
        case (true, true, true): return isNull(column, false)
        case (true, false, false): return orNil(list, field)
        case (true, false, true): return .tree(any: false, [list, isNull(column, false)])
        }
    }

    private func prefix(_ field: HTTPQueryField, _ prefix: String, negated: Bool) -> Term? {
        let column = field.name
        if prefix.isEmpty { return isNull(column, negated) }  // every text starts with ""
        if !prefix.unicodeScalars.contains(where: { "*%_\\".unicodeScalars.contains($0) }) {
            let pattern = Term.filter(
                column: column, operation: negated ? "not.like" : "like", value: prefix + "*", quoted: true)
            return negated ? orNil(pattern, field) : pattern
        }
        guard codePointTextOrder else { return nil }
        let lower = Term.filter(
            column: column, operation: negated ? "lt" : "gte", value: prefix, quoted: true)
        guard let upper = FieldValue.prefixUpperBound(prefix) else {
            return negated ? orNil(lower, field) : lower
        }
        let above = Term.filter(column: column, operation: negated ? "gte" : "lt", value: upper, quoted: true)
        return negated ? orNil(.tree(any: true, [lower, above]), field) : .tree(any: false, [lower, above])
    }
}
