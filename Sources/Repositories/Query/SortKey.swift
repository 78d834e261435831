import Foundation

/// One key a ``Query`` sorts by: a value taken from each entity, and a direction.
public struct SortKey<Entity>: Sendable {
    /// The direction of a sort.
    public enum Order: Sendable, Hashable {
        /// Smallest first.
        case ascending
        /// Largest first.
        case descending
    }

    /// The direction of this key.
    public let order: Order
    /// The declared field (``QueryableEntity``) this key sorts by, which a store can sort by
    /// where the data lives; `nil` for a key that computes its value.
    package let field: QueryableField<Entity>?
    private let ascendingComparison: @Sendable (Entity, Entity) -> ComparisonResult

    /// Sorts by the value at `keyPath`.
    ///
    /// When the entity declares the property (``QueryableEntity``), the key sorts by the
    /// declared field, in ``FieldValue``'s order, and stores sort by it where the data lives.
    public init<Value: Comparable & Sendable>(
        _ keyPath: KeyPath<Entity, Value> & Sendable, _ order: Order = .ascending
    ) {
        if let field = DeclaredFields.field(at: keyPath, of: Entity.self) {
            self.init(field, order)
        } else {
            self.init(order) { $0[keyPath: keyPath] }
        }
    }

    /// Sorts by the optional value at `keyPath`, `nil` first when ascending.
    ///
    /// When the entity declares the property (``QueryableEntity``), stores sort by it where
    /// the data lives.
    public init<Wrapped: QueryableValue & Comparable>(
        _ keyPath: KeyPath<Entity, Wrapped?> & Sendable, _ order: Order = .ascending
    ) {
        if let field = DeclaredFields.field(at: keyPath, of: Entity.self) {
            self.init(field, order)
        } else {
            self.init(order) { $0[keyPath: keyPath].fieldValue }
        }
    }

    /// Sorts by the enum at `keyPath`, by its raw value.
    ///
    /// When the entity declares the property (``QueryableEntity``), stores sort by it where
    /// the data lives.
    @_disfavoredOverload
    public init<Value: QueryableValue & RawRepresentable>(
        _ keyPath: KeyPath<Entity, Value> & Sendable, _ order: Order = .ascending
    ) where Value.RawValue: Comparable & Sendable {
        if let field = DeclaredFields.field(at: keyPath, of: Entity.self) {
            self.init(field, order)
        } else {
            self.init(order) { $0[keyPath: keyPath].rawValue }
        }
    }

    /// Sorts by the declared `field`, in ``FieldValue``'s order.
    package init(_ field: QueryableField<Entity>, _ order: Order = .ascending) {
        self.order = order
        self.field = field
        let value = field.value
        self.ascendingComparison = { lhs, rhs in Self.compare(value(lhs), value(rhs)) }
    }

    /// Sorts by the value `value` computes from each entity.
    public init<Value: Comparable & Sendable>(
        _ order: Order = .ascending, by value: @escaping @Sendable (Entity) -> Value
    ) {
        self.order = order
        self.field = nil
        self.ascendingComparison = { lhs, rhs in Self.compare(value(lhs), value(rhs)) }
    }

    private static func compare<Value: Comparable>(_ left: Value, _ right: Value) -> ComparisonResult {
        if left < right { return .orderedAscending }
        if right < left { return .orderedDescending }
        return .orderedSame
    }

    /// Sorts by the value at `keyPath`, smallest first.
    public static func ascending<Value: Comparable & Sendable>(_ keyPath: KeyPath<Entity, Value> & Sendable)
        -> SortKey
    {
        SortKey(keyPath, .ascending)
    }

    /// Sorts by the value at `keyPath`, largest first.
    public static func descending<Value: Comparable & Sendable>(_ keyPath: KeyPath<Entity, Value> & Sendable)
        -> SortKey
    {
        SortKey(keyPath, .descending)
    }

    /// Compares two entities in this key's direction.
    public func compare(_ lhs: Entity, _ rhs: Entity) -> ComparisonResult {
        let result = ascendingComparison(lhs, rhs)
        guard order == .descending else { return result }
        switch result {
        case .orderedAscending: return .orderedDescending
        case .orderedDescending: return .orderedAscending
        case .orderedSame: return .orderedSame
        }
    }
}
