/// One broken law: which, what was seen, and the operations that showed it.
public struct ConformanceViolation: Sendable, CustomStringConvertible {
    /// The law that was broken.
    public var law: ConformanceLaw
    /// What was expected and what happened instead.
    public var message: String
    /// The operations, in order, that led to the break (shrunk for the randomized area).
    public var operations: [String]
    /// The seed that reproduces the break, for laws that make random choices.
    public var seed: UInt64?

    /// The law, the message, the seed and the operations, one per line.
    public var description: String {
        var lines = ["✗ \(law.area)/\(law): \(message)"]
        if let seed {
            lines.append(
                "  reproduce with seed \(seed) (ConformanceOptions.seed or REPOSITORY_CONFORMANCE_SEED=\(seed))"
            )
        }
        if !operations.isEmpty {
            lines.append("  operations:")
            lines.append(contentsOf: operations.enumerated().map { "    \($0.offset + 1). \($0.element)" })
        }
        return lines.joined(separator: "\n")
    }
}

/// What a conformance run did: the laws it checked, the ones it skipped and why, and the
/// ones that broke.
public struct ConformanceReport: Sendable, CustomStringConvertible {
    /// A law that was not checked, with the reason.
    public struct Skip: Sendable, CustomStringConvertible {
        /// The law not checked.
        public var law: ConformanceLaw
        /// Why it was not checked (a capability declared unsupported, a missing option).
        public var reason: String
        /// The law and the reason.
        public var description: String { "– \(law.area)/\(law) skipped: \(reason)" }
    }

    /// The seed every randomized choice of the run derived from.
    public var seed: UInt64
    /// The laws that were checked and held.
    public var passed: [ConformanceLaw] = []
    /// The laws that were not checked, with reasons.
    public var skipped: [Skip] = []
    /// The laws that broke.
    public var violations: [ConformanceViolation] = []
    /// Things worth knowing that are not failures (for example, operations that threw under load).
    public var notes: [String] = []

    /// Creates an empty report for a run with `seed`.
    public init(seed: UInt64) {
        self.seed = seed
    }

    /// A summary line, then every violation, skip and note.
    public var description: String {
        var lines = [
            "RepositoryConformance (seed \(seed)): \(passed.count) laws held, \(violations.count) broke, \(skipped.count) skipped"
        ]
        lines += violations.map(\.description)
        lines += skipped.map(\.description)
        lines += notes.map { "note: \($0)" }
        return lines.joined(separator: "\n")
    }

    mutating func merge(_ other: ConformanceReport) {
        passed += other.passed
        skipped += other.skipped
        violations += other.violations
        notes += other.notes
    }
}

/// The error ``RepositoryConformance/run()`` throws: every broken law of the run, each with
/// the operations that broke it.
public struct ConformanceFailure: Error, Sendable, CustomStringConvertible {
    /// The whole report, violations included.
    public var report: ConformanceReport

    /// The broken laws.
    public var violations: [ConformanceViolation] { report.violations }

    /// The laws broken, without repeats, in the order they were found.
    public var brokenLaws: [ConformanceLaw] {
        var seen = Set<ConformanceLaw>()
        return report.violations.map(\.law).filter { seen.insert($0).inserted }
    }

    /// The report.
    public var description: String { report.description }
}
