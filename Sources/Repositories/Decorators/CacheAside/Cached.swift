import Foundation

/// An entity as a cache keeps it: the value, and the wall-clock time it was read from its
/// source.
///
/// A ``CacheAsideRepository`` stores these in its cache repository. Because ``storedAt`` is
/// a `Date`, a cache held in a durable store (a `FileRepository<Cached<Product>>`) keeps
/// each entry's age across restarts, and an entry that expired while the app was closed is
/// read again from the source.
///
/// It is `Identifiable` with the value's ID, `Codable` when the value is, and `Equatable`
/// and `Hashable` when the value is.
public struct Cached<Entity: Identifiable & Sendable>: Identifiable, Sendable where Entity.ID: Sendable {
    /// The cached value.
    public var value: Entity
    /// When the value was read from the source, in wall-clock time.
    public var storedAt: Date

    /// The value's ID.
    public var id: Entity.ID { value.id }

    /// Wraps `value`, read from the source at `storedAt`.
    public init(_ value: Entity, storedAt: Date) {
        self.value = value
        self.storedAt = storedAt
    }

    /// How long before `now` the value was read; negative when ``storedAt`` lies after `now`
    /// (the system clock was set back).
    public func age(at now: Date) -> Duration {
        Duration(timeInterval: now.timeIntervalSince(storedAt))
    }
}

extension Cached: Codable where Entity: Codable {}
extension Cached: Equatable where Entity: Equatable {}
extension Cached: Hashable where Entity: Hashable {}
