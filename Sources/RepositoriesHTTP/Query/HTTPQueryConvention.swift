import Foundation
import Repositories

/// How an API takes a query as parameters of its own, so a list screen asks for the 20 rows
/// it shows instead of downloading the collection: which conditions and orders it can run,
/// and how each is written.
///
/// Set it as ``HTTPRepository/Configuration/queries``; the presets do
/// (``postgREST(codePointTextOrder:tiebreak:maximumLimit:)``, ``djangoFilter(codePointTextOrder:tiebreak:maximumLimit:)``,
/// ``jsonServer(maximumLimit:)``, ``lookups(orderingName:codePointTextOrder:tiebreak:maximumLimit:)`` for FastAPI), and a
/// convention of your own is three closures:
///
/// ```swift
/// var queries = HTTPQueryConvention(maximumLimit: 100)
/// queries.condition = { condition in      // one of the query's conditions, or nil
///     guard case .compare(let field, .equal, .text(let text)) = condition else { return nil }
///     return [URLQueryItem(name: field.name, value: text)]
/// }
/// queries.order = { keys in                // the whole order, or nil
///     keys.count == 1 ? [URLQueryItem(name: "sort", value: keys[0].field.name)] : nil
/// }
/// queries.window = { offset, limit in
///     [URLQueryItem(name: "skip", value: "\(offset)"), URLQueryItem(name: "take", value: "\(limit)")]
/// }
/// configuration.queries = queries
/// ```
///
/// ``HTTPRepository/fetch(_:)`` splits the query's conditions at their top-level `&&` and asks
/// ``condition`` for each; the ones it answers `nil` for, and closure filters, run on the
/// device over what the API sent. When nothing runs on the device and ``order`` can write the
/// sort keys, the offset and limit go to the API too (``window``): one request of `limit`
/// rows. Otherwise the API's answer is read in windows of ``maximumLimit`` until the device
/// has what the query asks for; with an order the API cannot write, every row the API's
/// conditions select is read.
///
/// The device checks what comes back: every row must meet every condition sent and come in
/// the order asked, or the query throws `corrupted`, naming the row, since an API that
/// ignored a parameter would otherwise answer the wrong rows in silence.
public struct HTTPQueryConvention: Sendable {
    /// Writes one condition as parameters, or answers `nil` when the API cannot run it
    /// exactly as Swift does (it then runs on the device). Default: `nil` for every one.
    public var condition: @Sendable (HTTPQueryCondition) -> [URLQueryItem]?
    /// Writes the order of the answer: the query's sort keys, most significant first
    /// (empty: the collection's order), or `nil` when the API cannot sort by them (the
    /// device then sorts every row the conditions select). Ties must keep the order
    /// ``HTTPRepository/fetchAll()`` reads, so an API that sorts ties arbitrarily should be
    /// given a last key of its own (the primary key). Default: only the empty order, with no
    /// parameter.
    public var order: @Sendable ([HTTPQuerySortKey]) -> [URLQueryItem]?
    /// Writes a window of the ordered answer: `limit` rows after the first `offset`.
    /// Default: `offset` and `limit`.
    public var window: @Sendable (_ offset: Int, _ limit: Int) -> [URLQueryItem]
    /// The most rows one request may ask for (the server's cap: FastAPI's tutorial's
    /// `le=100`, PostgREST's `max-rows`); larger windows are read in several requests.
    public var maximumLimit: Int
    /// Joins the parameters of every condition sent into the request's; by default they
    /// are sent as they are. PostgREST's joins several logical trees into one `and=(…)`.
    public var combine: @Sendable ([URLQueryItem]) -> [URLQueryItem]
    /// Whether the API requires every parameter of a name given twice (PostgREST does);
    /// otherwise a condition whose parameter names another condition already used runs on
    /// the device, since Django and FastAPI read only the last of them and json-server any.
    public var repeatedNamesAreAllRequired: Bool
    /// The parameter names the convention uses itself (`order`, `limit`…): a condition on a
    /// field of one of these names runs on the device.
    public var reservedNames: Set<String>
    /// Headers the query's requests carry.
    public var headers: [String: String]

    /// A convention that runs nothing on the API until its closures say what it can run.
    public init(maximumLimit: Int = 100, headers: [String: String] = [:]) {
        self.condition = { _ in nil }
        self.order = { keys in keys.isEmpty ? [] : nil }
        self.window = { offset, limit in
            [
                URLQueryItem(name: "offset", value: String(offset)),
                URLQueryItem(name: "limit", value: String(limit)),
            ]
        }
        self.maximumLimit = max(1, maximumLimit)
        self.combine = { $0 }
        self.repeatedNamesAreAllRequired = false
        self.reservedNames = ["offset", "limit"]
        self.headers = headers
    }
}

extension HTTPQueryCondition {
    /// The condition with every `not` pushed down to the comparisons, each replaced by its
    /// complement in Swift's order (`!(a < 5)` is `a >= 5`, `nil` included), and nested
    /// `all`s and `any`s flattened. What is left of `not` wraps only `isIn` and `hasPrefix`.
    public var negationsPushedDown: HTTPQueryCondition {
        pushingDown(negated: false)
    }

    private func pushingDown(negated: Bool) -> HTTPQueryCondition {
        switch self {
        case .compare(let field, let comparison, let value):
            guard negated else { return self }
            return .compare(field, HTTPQueryOperator(comparison.fieldComparison.complement), value)
        case .isIn, .hasPrefix:
            return negated ? .not(self) : self
        case .all(let conditions):
            let pushed = conditions.map { $0.pushingDown(negated: negated) }
            return negated
                ? .any(Self.flattened(pushed, any: true)) : .all(Self.flattened(pushed, any: false))
        case .any(let conditions):
            let pushed = conditions.map { $0.pushingDown(negated: negated) }
            return negated
                ? .all(Self.flattened(pushed, any: false)) : .any(Self.flattened(pushed, any: true))
        case .not(let condition):
            return condition.pushingDown(negated: !negated)
        }
    }

    private static func flattened(_ conditions: [HTTPQueryCondition], any: Bool) -> [HTTPQueryCondition] {
        conditions.flatMap { condition -> [HTTPQueryCondition] in
            switch condition {
            case .any(let inner) where any: inner
            case .all(let inner) where !any: inner
            default: [condition]
            }
        }
    }
}

extension FieldValue {
    /// The value as a query parameter writes it: `true`, `42`, `1.5`, the text itself, a date
    /// in ISO 8601 UTC to the microsecond (`2024-05-01T09:30:00.25Z`); `nil` for `nil`, for a
    /// value JSON cannot hold (NaN, infinity, a date outside 0000–9999), and for a date finer
    /// than a microsecond, which the API would compare rounded.
    var parameterText: String? {
        switch self {
        case .null: nil
        case .bool(let value): value ? "true" : "false"
        case .integer(let value): String(value)
        case .double(let value): value.isFinite ? String(value) : nil
        case .text(let value): value
        case .date(let value):
            InternetDate.format(value, fraction: .microseconds).flatMap { text in
                InternetDate.parse(text) == value ? text : nil
            }
        }
    }
}
