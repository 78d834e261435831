/// A capability a store may lack; the laws that need it are skipped, and the report says so.
public enum ConformanceCapability: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `save(contentsOf:)` is all or nothing (plain REST cannot promise it).
    case atomicBatches
    /// `fetchAll()` returns entities in the order of first insertion.
    case insertionOrder

    /// The capability's name.
    public var description: String { rawValue }
}
