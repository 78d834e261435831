/// Whether two values are equal, when their type is `Equatable`; `nil` when it is not.
///
/// Decorators use it to skip writing a copy that is already current, which spares a durable
/// second store a write per read, without requiring every entity to be `Equatable`.
func equalIfEquatable<Value>(_ lhs: Value, _ rhs: Value) -> Bool? {
    guard let lhs = lhs as? any Equatable else { return nil }
    return lhs.isEqual(toAny: rhs)
}

extension Equatable {
    fileprivate func isEqual(toAny other: Any) -> Bool {
        guard let other = other as? Self else { return false }
        return self == other
    }
}
