/// A condition on an entity's declared fields (``QueryableEntity``), which a store can run
/// where the data lives: an index, a `WHERE` clause, an API's parameters.
///
/// Write one with a key path and an operator, and combine them with ``all(_:)``,
/// ``any(_:)`` and ``not(_:)`` (several `where` calls must all hold, too):
///
/// ```swift
/// let found = try await meteorites.fetch(
///     Query<Meteorite>()
///         .where(\.year >= 1900)
///         .where(.any(\.mass > 1_000, \.mass == nil))
///         .where(.hasPrefix(\.name, "Al"))
///         .where(.isIn(\.recclass, ["L6", "H5"])))
/// ```
///
/// Named, not `&&` and `||`: operators of this type beside the comparisons on key paths
/// would make the compiler try them in every `&&` of plain values, and give up on long ones.
///
/// Every comparison uses the order of ``FieldValue``: `nil` before every value, so
/// `\.mass < 10` holds for a `nil` mass, as `nil` sorts first.
public struct FieldCondition<Entity>: Sendable, CustomStringConvertible {
    /// The condition's shape, which stores translate.
    package let node: FieldConditionNode<Entity>

    package init(_ node: FieldConditionNode<Entity>) {
        self.node = node
    }

    /// Whether `entity` meets the condition.
    public func matches(_ entity: Entity) -> Bool {
        node.matches(entity)
    }

    /// The condition as code would spell it: `year >= 1900 && mass < 10`.
    public var description: String { node.description }

    /// Holds when every one of `conditions` holds (none: always).
    public static func all(_ conditions: FieldCondition...) -> FieldCondition {
        FieldCondition(.and(conditions.flatMap(\.node.conjuncts)))
    }

    /// Holds when at least one of `conditions` holds (none: never).
    public static func any(_ conditions: FieldCondition...) -> FieldCondition {
        FieldCondition(.or(conditions.flatMap(\.node.disjuncts)))
    }

    /// Holds when `condition` does not.
    public static func not(_ condition: FieldCondition) -> FieldCondition {
        FieldCondition(.not(condition.node))
    }
}

/// A declared field a condition reads, or the key path it was given when the entity does not
/// declare it (which ``Query/validate()`` refuses).
package struct FieldOperand<Entity>: Sendable {
    /// The key path the condition was written with.
    package let keyPath: AnyKeyPath & Sendable
    /// The declared field at `keyPath`; `nil` when the entity does not declare it.
    package let field: QueryableField<Entity>?
    /// Reads the value from an entity, declared or not.
    package let value: @Sendable (Entity) -> FieldValue

    init<Value: QueryableValue>(_ keyPath: KeyPath<Entity, Value> & Sendable) {
        self.keyPath = keyPath
        self.field = DeclaredFields.field(at: keyPath, of: Entity.self)
        self.value = { $0[keyPath: keyPath].fieldValue }
    }

    /// The declared `field`.
    package init(_ field: QueryableField<Entity>) {
        self.keyPath = field.keyPath
        self.field = field
        self.value = field.value
    }

    /// The field's declared name, or the key path when it is not declared.
    var name: String { field?.name ?? "\(keyPath)" }
}

/// How a condition compares a field with a value.
package enum FieldComparison: String, Sendable, Hashable {
    case equal = "=="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="

    /// Whether `lhs` and `rhs` compare this way in ``FieldValue``'s order.
    package func holds(_ lhs: FieldValue, _ rhs: FieldValue) -> Bool {
        switch self {
        case .equal: lhs == rhs
        case .notEqual: lhs != rhs
        case .less: lhs < rhs
        case .lessOrEqual: !(rhs < lhs)
        case .greater: rhs < lhs
        case .greaterOrEqual: !(lhs < rhs)
        }
    }
}

/// The shape of a ``FieldCondition``.
package indirect enum FieldConditionNode<Entity>: Sendable, CustomStringConvertible {
    /// The field compared with a value.
    case compare(FieldOperand<Entity>, FieldComparison, FieldValue)
    /// The field equal to one of the values.
    case oneOf(FieldOperand<Entity>, [FieldValue])
    /// The field is text starting with the prefix (``FieldValue/hasTextPrefix(_:)``), which
    /// is in NFC: make it with ``prefix(_:normalizing:)``.
    case prefix(FieldOperand<Entity>, String)
    /// Every one holds (none: true).
    case and([FieldConditionNode])
    /// One holds at least (none: false).
    case or([FieldConditionNode])
    /// It does not hold.
    case not(FieldConditionNode)

    /// The field is text starting with `prefix`, normalised to NFC.
    package static func prefix(_ operand: FieldOperand<Entity>, normalizing prefix: String) -> Self {
        .prefix(operand, FieldValue.nfc(prefix))
    }

    package func matches(_ entity: Entity) -> Bool {
        switch self {
        case .compare(let operand, let comparison, let value):
            comparison.holds(operand.value(entity), value)
        case .oneOf(let operand, let values):
            values.contains(operand.value(entity))
        case .prefix(let operand, let prefix):
            operand.value(entity).hasTextPrefix(prefix)
        case .and(let nodes):
            nodes.allSatisfy { $0.matches(entity) }
        case .or(let nodes):
            nodes.contains { $0.matches(entity) }
        case .not(let node):
            !node.matches(entity)
        }
    }

    /// The conditions that must all hold: this one's parts if it is an `and`.
    package var conjuncts: [FieldConditionNode] {
        if case .and(let nodes) = self { return nodes }
        return [self]
    }

    var disjuncts: [FieldConditionNode] {
        if case .or(let nodes) = self { return nodes }
        return [self]
    }

    /// Every field operand, depth first.
    package var operands: [FieldOperand<Entity>] {
        switch self {
        case .compare(let operand, _, _), .oneOf(let operand, _), .prefix(let operand, _): [operand]
        case .and(let nodes), .or(let nodes): nodes.flatMap(\.operands)
        case .not(let node): node.operands
        }
    }

    package var description: String { describe(\.description) }

    /// The condition spelled with every value exact (a date to the bit), for telling two
    /// conditions apart durably: the subset an offline-first sync's cursor was kept for.
    package var exactDescription: String { describe(\.exactDescription) }

    private func describe(_ value: (FieldValue) -> String) -> String {
        switch self {
        case .compare(let operand, let comparison, let compared):
            "\(operand.name) \(comparison.rawValue) \(value(compared))"
        case .oneOf(let operand, let values):
            "\(operand.name) in [\(values.map(value).joined(separator: ", "))]"
        case .prefix(let operand, let prefix):
            "\(operand.name) hasPrefix \(prefix.debugDescription)"
        case .and(let nodes):
            nodes.isEmpty
                ? "true" : nodes.map { $0.parenthesized(inside: "&&", value) }.joined(separator: " && ")
        case .or(let nodes):
            nodes.isEmpty
                ? "false" : nodes.map { $0.parenthesized(inside: "||", value) }.joined(separator: " || ")
        case .not(let node):
            "!(\(node.describe(value)))"
        }
    }

    private func parenthesized(inside joiner: String, _ value: (FieldValue) -> String) -> String {
        switch self {
        case .and where joiner == "||", .or where joiner == "&&": "(\(describe(value)))"
        default: describe(value)
        }
    }
}

extension FieldCondition where Entity: QueryableEntity {
    /// Holds when the text field at `keyPath` starts with `prefix`: case-sensitive, comparing
    /// Unicode scalars after NFC normalisation (never a pattern: `%` and `_` are plain
    /// characters); a `nil` field never matches.
    public static func hasPrefix(_ keyPath: KeyPath<Entity, String> & Sendable, _ prefix: String)
        -> FieldCondition
    {
        FieldCondition(.prefix(FieldOperand(keyPath), normalizing: prefix))
    }

    /// Holds when the optional text field at `keyPath` starts with `prefix`.
    public static func hasPrefix(_ keyPath: KeyPath<Entity, String?> & Sendable, _ prefix: String)
        -> FieldCondition
    {
        FieldCondition(.prefix(FieldOperand(keyPath), normalizing: prefix))
    }

    /// Holds when the field at `keyPath` equals one of `values`; no values, never.
    public static func isIn<Value: QueryableValue>(
        _ keyPath: KeyPath<Entity, Value> & Sendable, _ values: some Sequence<Value>
    ) -> FieldCondition {
        FieldCondition(.oneOf(FieldOperand(keyPath), values.map(\.fieldValue)))
    }

    /// Holds when the optional field at `keyPath` is `nil`.
    public static func isNil<Wrapped: QueryableValue>(_ keyPath: KeyPath<Entity, Wrapped?> & Sendable)
        -> FieldCondition
    {
        FieldCondition(.compare(FieldOperand(keyPath), .equal, .null))
    }
}

/// Holds when the field at `lhs` equals `rhs` (`\.mass == nil` when it is `nil`).
public func == <Entity: QueryableEntity, Value: QueryableValue>(
    lhs: KeyPath<Entity, Value> & Sendable, rhs: Value
) -> FieldCondition<Entity> {
    FieldCondition(.compare(FieldOperand(lhs), .equal, rhs.fieldValue))
}

/// Holds when the field at `lhs` differs from `rhs` (a `nil` field differs from every value).
public func != <Entity: QueryableEntity, Value: QueryableValue>(
    lhs: KeyPath<Entity, Value> & Sendable, rhs: Value
) -> FieldCondition<Entity> {
    FieldCondition(.compare(FieldOperand(lhs), .notEqual, rhs.fieldValue))
}

/// Holds when the field at `lhs` comes before `rhs`.
public func < <Entity: QueryableEntity, Value: QueryableValue & Comparable>(
    lhs: KeyPath<Entity, Value> & Sendable, rhs: Value
) -> FieldCondition<Entity> {
    FieldCondition(.compare(FieldOperand(lhs), .less, rhs.fieldValue))
}

/// Holds when the field at `lhs` comes before `rhs` or equals it.
public func <= <Entity: QueryableEntity, Value: QueryableValue & Comparable>(
    lhs: KeyPath<Entity, Value> & Sendable, rhs: Value
) -> FieldCondition<Entity> {
    FieldCondition(.compare(FieldOperand(lhs), .lessOrEqual, rhs.fieldValue))
}

/// Holds when the field at `lhs` comes after `rhs`.
public func > <Entity: QueryableEntity, Value: QueryableValue & Comparable>(
    lhs: KeyPath<Entity, Value> & Sendable, rhs: Value
) -> FieldCondition<Entity> {
    FieldCondition(.compare(FieldOperand(lhs), .greater, rhs.fieldValue))
}

/// Holds when the field at `lhs` comes after `rhs` or equals it.
public func >= <Entity: QueryableEntity, Value: QueryableValue & Comparable>(
    lhs: KeyPath<Entity, Value> & Sendable, rhs: Value
) -> FieldCondition<Entity> {
    FieldCondition(.compare(FieldOperand(lhs), .greaterOrEqual, rhs.fieldValue))
}

/// Holds when the optional field at `lhs` comes before `rhs`; a `nil` field does, as `nil`
/// sorts first.
public func < <Entity: QueryableEntity, Wrapped: QueryableValue & Comparable>(
    lhs: KeyPath<Entity, Wrapped?> & Sendable, rhs: Wrapped
) -> FieldCondition<Entity> {
    FieldCondition(.compare(FieldOperand(lhs), .less, rhs.fieldValue))
}

/// Holds when the optional field at `lhs` comes before `rhs` or equals it; a `nil` field does.
public func <= <Entity: QueryableEntity, Wrapped: QueryableValue & Comparable>(
    lhs: KeyPath<Entity, Wrapped?> & Sendable, rhs: Wrapped
) -> FieldCondition<Entity> {
    FieldCondition(.compare(FieldOperand(lhs), .lessOrEqual, rhs.fieldValue))
}

/// Holds when the optional field at `lhs` comes after `rhs`; a `nil` field never does.
public func > <Entity: QueryableEntity, Wrapped: QueryableValue & Comparable>(
    lhs: KeyPath<Entity, Wrapped?> & Sendable, rhs: Wrapped
) -> FieldCondition<Entity> {
    FieldCondition(.compare(FieldOperand(lhs), .greater, rhs.fieldValue))
}

/// Holds when the optional field at `lhs` comes after `rhs` or equals it; a `nil` field
/// never does.
public func >= <Entity: QueryableEntity, Wrapped: QueryableValue & Comparable>(
    lhs: KeyPath<Entity, Wrapped?> & Sendable, rhs: Wrapped
) -> FieldCondition<Entity> {
    FieldCondition(.compare(FieldOperand(lhs), .greaterOrEqual, rhs.fieldValue))
}
