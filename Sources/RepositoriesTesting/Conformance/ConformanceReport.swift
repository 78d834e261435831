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
