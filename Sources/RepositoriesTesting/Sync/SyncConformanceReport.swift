/// What a ``SyncConformance`` run did: the laws that held, the ones not checked, the
/// ones that broke.
public struct SyncConformanceReport: Sendable, CustomStringConvertible {
    /// The seed every random choice of the run derived from.
    public var seed: UInt64
    /// The laws checked that held in every sequence.
    public var passed: [SyncConformanceLaw] = []
    /// The laws not checked (``SyncConformanceLaw/mergesAreKept`` without `.merge`).
    public var skipped: [SyncConformanceLaw] = []
    /// The laws broken, each with the sequence that broke it.
    public var violations: [SyncConformanceViolation] = []

    /// Creates an empty report for a run with `seed`.
    public init(seed: UInt64) {
        self.seed = seed
    }

    /// A summary line, then every violation.
    public var description: String {
        let head =
            "SyncConformance (seed \(seed)): \(passed.count) laws held, \(violations.count) violations, \(skipped.count) skipped"
        return ([head] + violations.map(\.description)).joined(separator: "\n")
    }
}

/// One broken sync law: which, what was seen, and the operations that showed it.
public struct SyncConformanceViolation: Sendable, CustomStringConvertible {
    /// The law broken.
    public var law: SyncConformanceLaw
    /// What was expected and what was found.
    public var message: String
    /// The seed of the run.
    public var seed: UInt64
    /// Which random sequence of the run (from 1) broke it.
    public var sequence: Int
    /// The operations of the sequence that touched the entity concerned, with syncs and
    /// restarts, in order; every operation when no one entity is concerned.
    public var operations: [String]

    /// The law, the message, the seed and the operations, one per line.
    public var description: String {
        var lines = [
            "✗ \(law) (sequence \(sequence)): \(message)",
            "  reproduce with seed \(seed) (SyncConformanceOptions.seed or REPOSITORY_CONFORMANCE_SEED=\(seed))",
        ]
        if !operations.isEmpty {
            lines.append("  operations:")
            lines += operations.map { "    \($0)" }
        }
        return lines.joined(separator: "\n")
    }
}

/// The error ``SyncConformance/run()`` throws when a law broke.
public struct SyncConformanceFailure: Error, Sendable, CustomStringConvertible {
    /// The whole report, violations included.
    public var report: SyncConformanceReport

    /// The laws broken, without repeats, in the order they were found.
    public var brokenLaws: [SyncConformanceLaw] {
        var seen = Set<SyncConformanceLaw>()
        return report.violations.map(\.law).filter { seen.insert($0).inserted }
    }

    /// The report.
    public var description: String { report.description }
}
