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
    private let ascendingComparison: @Sendable (Entity, Entity) -> ComparisonResult

    /// Sorts by the value at `keyPath`.
    public init<Value: Comparable & Sendable>(
        _ keyPath: KeyPath<Entity, Value> & Sendable, _ order: Order = .ascending
    ) {
        self.init(order) { $0[keyPath: keyPath] }
    }

    /// Sorts by the value `value` computes from each entity.
    public init<Value: Comparable & Sendable>(
        _ order: Order = .ascending, by value: @escaping @Sendable (Entity) -> Value
    ) {
        self.order = order
        self.ascendingComparison = { lhs, rhs in
            let left = value(lhs)
            let right = value(rhs)
            if left < right { return .orderedAscending }
            if right < left { return .orderedDescending }
            return .orderedSame
        }
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
