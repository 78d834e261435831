import Foundation
import Repositories

extension HTTPQueryConvention {
    /// Django's field lookups as django-filter reads them (`price__lt=500`, `name__startswith=Ab`,
    /// `level__in=1,2`, `finished_at__isnull=true`), DRF's `OrderingFilter` (`ordering=-price,id`)
    /// and `LimitOffsetPagination` (`limit`, `offset`): the viewset needs
    /// `filter_backends = [DjangoFilterBackend, OrderingFilter]`, a `filterset_fields` with the
    /// lookups, `ordering_fields`, and `pagination_class = LimitOffsetPagination`.
    ///
    /// What is sent is what SQL answers as Swift does: the top-level `&&` of comparisons, `in`
    /// and prefixes; not `!=`, `||` or `!`, and not `<`/`<=` on a field that may be `nil` (SQL's
    /// `NULL` meets no comparison, Swift's `nil` is below every value). Sorts on such fields run
    /// on the device too, since databases put `NULL` first or last as they please.
    ///
    /// - Parameters:
    ///   - codePointTextOrder: whether the database compares text by code point (SQLite does;
    ///     PostgreSQL only under `COLLATE "C"`); only then are text ranges and sorts sent.
    ///   - tiebreak: the fields ties are ordered by, appended to every `ordering`: the model's
    ///     `Meta.ordering`, which ``HTTPRepository/fetchAll()`` reads in.
    ///   - maximumLimit: rows per request at most: the pagination's `max_limit`.
    public static func djangoFilter(
        codePointTextOrder: Bool = false, tiebreak: [String] = ["id"], maximumLimit: Int = 1_000
    )
        -> Self
    {
        var convention = lookups(
            orderingName: "ordering", codePointTextOrder: codePointTextOrder, tiebreak: tiebreak,
            maximumLimit: maximumLimit)
        convention.reservedNames.insert("format")  // DRF's content negotiation reads it
        return convention
    }

    /// The lookups of ``djangoFilter(codePointTextOrder:tiebreak:maximumLimit:)``, with the
    /// order in `orderingName`: the convention Docs/Queries.md documents for a FastAPI app
    /// (`order_by`, as fastapi-filter names it), which the tests' FastAPI app implements.
    ///
    /// - Parameters:
    ///   - orderingName: the parameter of the order, its fields comma-separated, `-` before a
    ///     descending one.
    ///   - codePointTextOrder: whether the API compares text by code point; only then are text
    ///     ranges and sorts sent.
    ///   - tiebreak: the fields ties are ordered by, appended to every order; `[]` for an API
    ///     that keeps ties in the collection's order, as the tests' FastAPI app does.
    ///   - maximumLimit: rows per request at most: the app's `limit` bound (`le=100`).
    public static func lookups(
        orderingName: String = "order_by", codePointTextOrder: Bool = false, tiebreak: [String] = ["id"],
        maximumLimit: Int = 100
    ) -> Self {
        var convention = Self(maximumLimit: maximumLimit)
        convention.reservedNames = ["offset", "limit", orderingName]
        convention.condition = { condition in
            LookupConditionWriter(codePointTextOrder: codePointTextOrder).items(
                for: condition.negationsPushedDown)
        }
        convention.order = { keys in
            var terms: [String] = []
            for key in keys {
                if key.field.isOptional || (key.field.type == .text && !codePointTextOrder) { return nil }
                terms.append((key.descending ? "-" : "") + key.field.name)
            }
            terms += tiebreak
            return terms.isEmpty
                ? [] : [URLQueryItem(name: orderingName, value: terms.joined(separator: ","))]
        }
        return convention
    }

    /// json-server's (0.17) filters (`level=3`, `level=3&level=4`, `price_gte=10`, `price_lte=20`,
    /// `status_ne=done`), `_sort`/`_order` and `_start`/`_limit`, which compare as JavaScript does:
    /// only what that answers as Swift does is sent, on fields that are never `nil` (json-server
    /// fails on a `null`): equality and `in` on integers, booleans and text, `!=` on them, and
    /// `>=`/`<=` and sorts on numbers.
    ///
    /// - Parameter maximumLimit: rows per request at most.
    public static func jsonServer(maximumLimit: Int = 1_000) -> Self {
        var convention = Self(maximumLimit: maximumLimit)
        convention.reservedNames = ["q"]
        convention.condition = { condition in
            JSONServerConditionWriter().items(for: condition.negationsPushedDown)
        }
        convention.order = { keys in
            guard !keys.isEmpty else { return [] }
            guard
                keys.allSatisfy({
                    !$0.field.isOptional && ($0.field.type == .integer || $0.field.type == .double)
                })
            else { return nil }
            return [
                URLQueryItem(name: "_sort", value: keys.map(\.field.name).joined(separator: ",")),
                URLQueryItem(
                    name: "_order", value: keys.map { $0.descending ? "desc" : "asc" }.joined(separator: ",")),
            ]
        }
        convention.window = { offset, limit in
            [
                URLQueryItem(name: "_start", value: String(offset)),
                URLQueryItem(name: "_limit", value: String(limit)),
            ]
        }
        return convention
    }
}

extension HTTPQueryCondition {
    /// The parameters of every one of `conditions`, each written by `write`, or `nil` when one
    /// cannot be written, or when two use one name (Django and FastAPI read only the last,
    /// json-server either): a conjunction in the conventions without logical trees.
    static func items(
        ofEvery conditions: [HTTPQueryCondition], _ write: (HTTPQueryCondition) -> [URLQueryItem]?
    ) -> [URLQueryItem]? {
        var items: [URLQueryItem] = []
        var names: Set<String> = []
        for condition in conditions {
            guard let more = write(condition), names.isDisjoint(with: more.map(\.name)) else { return nil }
            names.formUnion(more.map(\.name))
            items += more
        }
        return items
    }
}

/// Writes conditions as Django-style lookups.
struct LookupConditionWriter {
    /// Whether text ranges may be sent.
    let codePointTextOrder: Bool

    /// The parameters of `condition` (negations pushed down), or `nil`.
    func items(for condition: HTTPQueryCondition) -> [URLQueryItem]? {
        switch condition {
        case .all(let conditions):
            return HTTPQueryCondition.items(ofEvery: conditions, self.items)
        case .compare(let field, let comparison, .null):
            switch comparison {
            case .equal, .lessOrEqual: return [URLQueryItem(name: field.name + "__isnull", value: "true")]
            case .notEqual, .greater: return [URLQueryItem(name: field.name + "__isnull", value: "false")]
            case .less, .greaterOrEqual: return nil
            }
        case .compare(let field, let comparison, let value):
            // django-filter reads an empty value as no filter at all.
            guard let text = value.parameterText, !text.isEmpty else { return nil }
            if case .text = value, comparison != .equal, !codePointTextOrder { return nil }
            let lookup: String
            switch comparison {
            case .equal: lookup = ""
            case .notEqual: return nil
            case .less, .lessOrEqual:
                guard !field.isOptional else { return nil }
                lookup = comparison == .less ? "__lt" : "__lte"
            case .greater: lookup = "__gt"
            case .greaterOrEqual: lookup = "__gte"
            }
            return [URLQueryItem(name: field.name + lookup, value: text)]
        case .isIn(let field, let values):
            var texts: [String] = []
            for value in values {
                guard let text = value.parameterText, !text.isEmpty, !text.unicodeScalars.contains(",") else {
                    return nil
                }
                texts.append(text)
            }
            guard !texts.isEmpty else { return nil }
            return [URLQueryItem(name: field.name + "__in", value: texts.joined(separator: ","))]
        case .hasPrefix(let field, let prefix):
            guard !prefix.isEmpty else {
                return [URLQueryItem(name: field.name + "__isnull", value: "false")]
            }
            // Under code-point order a range, which every database runs case-sensitively;
            // Django's `startswith` on SQLite ignores ASCII case (its LIKE does).
            guard codePointTextOrder else {
                return [URLQueryItem(name: field.name + "__startswith", value: prefix)]
            }
            let lower = URLQueryItem(name: field.name + "__gte", value: prefix)
            guard let upper = FieldValue.prefixUpperBound(prefix) else { return [lower] }
            return [lower, URLQueryItem(name: field.name + "__lt", value: upper)]
        case .any, .not:
            return nil
        }
    }
}

/// Writes conditions as json-server's filters.
struct JSONServerConditionWriter {
    /// The parameters of `condition` (negations pushed down), or `nil`.
    func items(for condition: HTTPQueryCondition) -> [URLQueryItem]? {
        switch condition {
        case .all(let conditions):
            return HTTPQueryCondition.items(ofEvery: conditions, self.items)
        case .compare(let field, let comparison, let value):
            guard !field.isOptional, field.type != .date else { return nil }
            switch comparison {
            case .equal, .notEqual:
                guard let text = Self.text(value) else { return nil }
                return [URLQueryItem(name: field.name + (comparison == .equal ? "" : "_ne"), value: text)]
            case .greaterOrEqual, .lessOrEqual:
                // Compared as numbers: JavaScript reads Swift's shortest spelling exactly.
                guard field.type == .integer || field.type == .double, let text = value.parameterText else {
                    return nil
                }
                return [
                    URLQueryItem(
                        name: field.name + (comparison == .greaterOrEqual ? "_gte" : "_lte"), value: text)
                ]
            case .less, .greater:
                return nil
            }
        case .isIn(let field, let values):
            guard !field.isOptional, field.type != .date, field.type != .double, !values.isEmpty else {
                return nil
            }
            var items: [URLQueryItem] = []
            for value in values {
                guard let text = Self.text(value) else { return nil }
                items.append(URLQueryItem(name: field.name, value: text))
            }
            return items
        case .hasPrefix, .any, .not:
            return nil
        }
    }

    /// A value as JavaScript's `String(value)` writes it, which json-server's equality compares
    /// with: integers, booleans, text, and whole numbers (`3`, where Swift writes `3.0`).
    private static func text(_ value: FieldValue) -> String? {
        switch value {
        case .integer, .bool, .text: value.parameterText
        case .double(let number):
            number.isFinite && number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : nil
        case .null, .date: nil
        }
    }
}
