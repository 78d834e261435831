/// A group of laws that ``RepositoryConformance`` checks with one method.
public enum ConformanceArea: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Save, fetch, delete, count and their batch forms, one at a time.
    case basics
    /// All-or-nothing batches, proven with a fault.
    case batches
    /// Insertion order.
    case ordering
    /// Filter, sort, offset and limit.
    case queries
    /// Many tasks at once.
    case concurrency
    /// Randomized sequences compared with `InMemoryRepository`, shrunk on failure.
    case randomized
    /// Close and reopen (stores that persist).
    case durability
    /// Reopen with another version of the entity (stores that take `migrations:`).
    case migrations

    /// The laws this area checks.
    public var laws: [ConformanceLaw] { ConformanceLaw.allCases.filter { $0.area == self } }

    /// The area's name.
    public var description: String { rawValue }
}
