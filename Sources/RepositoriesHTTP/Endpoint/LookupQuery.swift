import Foundation
import Repositories

/// Reads a list request's parameters in the lookup convention
/// (``HTTPQueryConvention/lookups(orderingName:codePointTextOrder:tiebreak:maximumLimit:)``) as
/// a ``Query`` on the entity's declared fields, for ``SyncEndpoint`` to run where its store
/// keeps the data.
///
/// A field is named as declared (`found_at`) or in lower camel case (`foundAt`).
/// `field=v`, `field__lt`, `__lte`, `__gt`, `__gte`, `__in` (comma-separated), `__isnull`
/// (`true`/`false`), `__startswith`, and `order_by` (fields comma-separated, `-` for
/// descending). A comparison never selects a `nil`, as in SQL: `level__lt=3` is
/// `level < 3 && level != nil`.
struct LookupQuery<Entity> {
    /// The parameters the convention reserves for the window and the order.
    static var reserved: Set<String> { ["offset", "limit", "order_by"] }

    /// A request's parameter the convention cannot read: `400`, with this detail.
    struct Refusal: Error {
        var detail: String
    }

    /// The query `items` ask for, or `nil` when they hold no lookup and no order.
    ///
    /// - Throws: ``Refusal`` naming an unknown field or lookup, or a value its field cannot
    ///   hold.
    static func parse(_ items: [URLQueryItem], fields: [QueryableField<Entity>]) throws -> Query<Entity>? {
        var query = Query<Entity>()
        var asked = false
        for item in items where !reserved.contains(item.name) {
            asked = true
            let (name, lookup) = split(item.name)
            guard let field = field(named: name, in: fields) else {
                throw Refusal(detail: "No declared field is named \(name) (filter \(item.name))")
            }
            query = query.requiring(
                try condition(field, lookup: lookup, text: item.value ?? "", parameter: item.name))
        }
        for term in (items.first { $0.name == "order_by" }?.value ?? "").split(separator: ",") {
            asked = true
            let descending = term.hasPrefix("-")
            let name = String(descending ? term.dropFirst() : term)
            guard let field = field(named: name, in: fields) else {
                throw Refusal(detail: "No declared field is named \(name) (order_by)")
            }
            query = query.sorted(by: SortKey(field, descending ? .descending : .ascending))
        }
        return asked ? query : nil
    }

    /// The field declared as `name`, or whose name is `name` in lower camel case, as a client
    /// with Swift's default keys sends it (`foundAt` for `found_at`).
    private static func field(named name: String, in fields: [QueryableField<Entity>]) -> QueryableField<
        Entity
    >? {
        fields.first { $0.name == name } ?? fields.first { DeclaredFields.lowerCamelCase($0.name) == name }
    }

    /// `points__lt` as (`points`, `lt`); `points` as (`points`, ``).
    private static func split(_ name: String) -> (String, String) {
        guard let range = name.range(of: "__") else { return (name, "") }
        return (String(name[..<range.lowerBound]), String(name[range.upperBound...]))
    }

    private static func condition(
        _ field: QueryableField<Entity>, lookup: String, text: String, parameter: String
    ) throws -> FieldCondition<Entity> {
        let operand = FieldOperand(field)
        func compare(_ comparison: FieldComparison) throws -> FieldCondition<Entity> {
            // A range's bound is compared as sent: normalised, a prefix's upper bound
            // (U+2126 after "℥") could fall below the prefix.
            let bound = try value(field, text, parameter, normalized: comparison == .equal)
            let compared = FieldCondition(.compare(operand, comparison, bound))
            // SQL's NULL meets no comparison; Swift's nil is below every value.
            guard field.isOptional, comparison == .less || comparison == .lessOrEqual else { return compared }
            return .all(compared, FieldCondition(.compare(operand, .notEqual, .null)))
        }
        switch lookup {
        case "": return try compare(.equal)
        case "lt": return try compare(.less)
        case "lte": return try compare(.lessOrEqual)
        case "gt": return try compare(.greater)
        case "gte": return try compare(.greaterOrEqual)
        case "in":
            // Split between scalars: a comma followed by a combining mark is one Character.
            let values = try text.unicodeScalars.split(separator: ",", omittingEmptySubsequences: false).map {
                try value(field, String(String.UnicodeScalarView($0)), parameter)
            }
            return FieldCondition(.oneOf(operand, values))
        case "isnull":
            guard text == "true" || text == "false" else {
                throw Refusal(detail: "\(parameter) takes true or false, not \(text)")
            }
            return FieldCondition(.compare(operand, text == "true" ? .equal : .notEqual, .null))
        case "startswith":
            guard field.type == .text else {
                throw Refusal(detail: "\(parameter): \(field.name) is not text")
            }
            return FieldCondition(.prefix(operand, normalizing: text))
        default:
            throw Refusal(detail: "Unknown lookup \(lookup) in \(parameter)")
        }
    }

    /// `text` as a value of `field`'s type.
    private static func value(
        _ field: QueryableField<Entity>, _ text: String, _ parameter: String, normalized: Bool = true
    ) throws -> FieldValue {
        let parsed: FieldValue? =
            switch field.type {
            case .bool: text == "true" ? .bool(true) : text == "false" ? .bool(false) : nil
            case .integer: Int64(text).map(FieldValue.integer)
            case .double: Double(text).map(FieldValue.double)
            case .text: normalized ? .normalizedText(text) : .text(text)
            case .date: InternetDate.parse(text).map(FieldValue.date)
            }
        guard let parsed else {
            throw Refusal(detail: "\(parameter) takes a \(field.type) value, not \(text)")
        }
        return parsed
    }
}
