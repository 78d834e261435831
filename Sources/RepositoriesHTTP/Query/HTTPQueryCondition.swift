import Foundation
import Repositories

/// A declared field as an API's query parameters name it: its key in the API's JSON, its
/// type, and whether it may be `nil`.
///
/// The key is the field's declared name (`QueryableField.name`, `found_at`) when the
/// configuration's coding converts keys to snake case, as the Python presets' do; with
/// Swift's default keys it is that name in lower camel case (`foundAt`), the key of the
/// property the field is usually named after.
public struct HTTPQueryField: Sendable, Hashable, CustomStringConvertible {
    /// The name the API filters and sorts by: the field's key in the API's JSON.
    public let name: String
    /// The field's type.
    public let type: FieldType
    /// Whether the field may be `nil` (`null` in the API's JSON).
    public let isOptional: Bool

    /// The field `name` of `type`.
    public init(name: String, type: FieldType, isOptional: Bool = false) {
        self.name = name
        self.type = type
        self.isOptional = isOptional
    }

    /// The name.
    public var description: String { name }
}

/// A comparison of a field with a value.
public enum HTTPQueryOperator: String, Sendable, Hashable {
    /// `==`; with `nil`, "is nil".
    case equal = "=="
    /// `!=`; with `nil`, "is not nil".
    case notEqual = "!="
    /// `<`.
    case less = "<"
    /// `<=`.
    case lessOrEqual = "<="
    /// `>`.
    case greater = ">"
    /// `>=`.
    case greaterOrEqual = ">="
}

/// A query's condition, on declared fields, as an ``HTTPQueryConvention`` receives it to
/// write it as the API's parameters.
///
/// Comparisons follow `FieldValue`'s order, the order every store of this package keeps:
/// `nil` is below every value, so `rank < 3` holds for a `nil` rank; text compares by code
/// point, in Unicode normalization form C. A convention whose API orders otherwise (SQL's
/// `NULL` meets no comparison) writes what it can express exactly, and answers `nil` for
/// the rest, which then runs on the device.
public indirect enum HTTPQueryCondition: Sendable, Hashable, CustomStringConvertible {
    /// The field compared with a value; `.null` is `nil`.
    case compare(HTTPQueryField, HTTPQueryOperator, FieldValue)
    /// The field equals one of the values.
    case isIn(HTTPQueryField, [FieldValue])
    /// The field's text starts with the prefix (case-sensitive, in normalization form C);
    /// `nil` never does.
    case hasPrefix(HTTPQueryField, String)
    /// Every condition holds; none, always true.
    case all([HTTPQueryCondition])
    /// At least one condition holds; none, always false.
    case any([HTTPQueryCondition])
    /// The condition does not hold.
    case not(HTTPQueryCondition)

    /// The condition in Swift's notation: `price < 5.0 && name hasPrefix "A"`.
    public var description: String {
        switch self {
        case .compare(let field, let comparison, let value): "\(field) \(comparison.rawValue) \(value)"
        case .isIn(let field, let values):
            "\(field) in [\(values.map(\.description).joined(separator: ", "))]"
        case .hasPrefix(let field, let prefix): "\(field) hasPrefix \"\(prefix)\""
        case .all(let conditions):
            conditions.isEmpty ? "true" : "(" + conditions.map(\.description).joined(separator: " && ") + ")"
        case .any(let conditions):
            conditions.isEmpty ? "false" : "(" + conditions.map(\.description).joined(separator: " || ") + ")"
        case .not(let condition): "!(\(condition))"
        }
    }

    /// `node` with each declared field named as `apiName` names it.
    init<Entity>(_ node: FieldConditionNode<Entity>, apiName: (String) -> String) {
        func field(_ operand: FieldOperand<Entity>) -> HTTPQueryField {
            HTTPQueryField(operand, apiName: apiName)
        }
        switch node {
        case .compare(let operand, let comparison, let value):
            self = .compare(field(operand), HTTPQueryOperator(comparison), value)
        case .oneOf(let operand, let values): self = .isIn(field(operand), values)
        case .prefix(let operand, let prefix): self = .hasPrefix(field(operand), prefix)
        case .and(let nodes): self = .all(nodes.map { HTTPQueryCondition($0, apiName: apiName) })
        case .or(let nodes): self = .any(nodes.map { HTTPQueryCondition($0, apiName: apiName) })
        case .not(let node): self = .not(HTTPQueryCondition(node, apiName: apiName))
        }
    }
}

extension HTTPQueryField {
    /// The declared field an operand reads, named by `apiName`; a query is validated first,
    /// so it has one.
    init<Entity>(_ operand: FieldOperand<Entity>, apiName: (String) -> String) {
        self.init(
            name: apiName(operand.field?.name ?? "\(operand.keyPath)"), type: operand.field?.type ?? .text,
            isOptional: operand.field?.isOptional ?? true)
    }
}

extension HTTPQueryOperator {
    /// The operator of `comparison`: the two enums spell each case with the same raw value.
    init(_ comparison: FieldComparison) {
        guard let operation = Self(rawValue: comparison.rawValue) else {
            preconditionFailure("FieldComparison.\(comparison) has no HTTPQueryOperator of its raw value")
        }
        self = operation
    }

    /// The comparison this operator is, whose complement the negations use.
    var fieldComparison: FieldComparison {
        guard let comparison = FieldComparison(rawValue: rawValue) else {
            preconditionFailure("HTTPQueryOperator.\(self) has no FieldComparison of its raw value")
        }
        return comparison
    }
}

/// A sort key on a declared field, as an ``HTTPQueryConvention`` receives it: ascending
/// puts `nil` first, descending last, as Swift's order does; ties keep the collection's
/// order.
public struct HTTPQuerySortKey: Sendable, Hashable, CustomStringConvertible {
    /// The field sorted by.
    public let field: HTTPQueryField
    /// Whether the order is descending.
    public let descending: Bool

    /// A key sorting by `field`.
    public init(_ field: HTTPQueryField, descending: Bool = false) {
        self.field = field
        self.descending = descending
    }

    /// `price descending`.
    public var description: String { field.name + (descending ? " descending" : "") }
}
