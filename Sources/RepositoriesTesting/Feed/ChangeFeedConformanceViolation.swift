/// One broken law of a change feed: which, what was seen, and the operations that showed it.
public struct ChangeFeedConformanceViolation: Sendable, CustomStringConvertible {
    /// The law that was broken.
    public var law: ChangeFeedLaw
    /// What was expected and what happened instead.
    public var message: String
    /// The writes and reads, in order, that led to the break; each cursor is named by the
    /// order the feed handed it out (`c1`, `c2`…).
    public var operations: [String]
    /// The seed that reproduces the break, for laws that make random choices.
    public var seed: UInt64?

    /// The law, the message, the seed and the operations, one per line.
    public var description: String {
        var lines = ["✗ \(law): \(message)"]
        if let seed {
            lines.append(
                "  reproduce with seed \(seed) (ChangeFeedConformanceOptions.seed or REPOSITORY_CONFORMANCE_SEED=\(seed))"
            )
        }
        if !operations.isEmpty {
            lines.append("  operations:")
            lines.append(contentsOf: operations.enumerated().map { "    \($0.offset + 1). \($0.element)" })
        }
        return lines.joined(separator: "\n")
    }
}
