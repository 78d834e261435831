/// What a ``ChangeFeedConformance`` run did: the laws it checked, the ones it skipped and
/// why, and the ones that broke.
public struct ChangeFeedConformanceReport: Sendable, CustomStringConvertible {
    /// A law that was not checked, with the reason.
    public struct Skip: Sendable, CustomStringConvertible {
        /// The law not checked.
        public var law: ChangeFeedLaw
        /// Why it was not checked (the option it needs was not given).
        public var reason: String
        /// The law and the reason.
        public var description: String { "– \(law) skipped: \(reason)" }
    }

    /// The seed the concurrency law's random writes derived from.
    public var seed: UInt64
    /// The laws that were checked and held.
    public var passed: [ChangeFeedLaw] = []
    /// The laws that were not checked, with reasons.
    public var skipped: [Skip] = []
    /// The laws that broke.
    public var violations: [ChangeFeedConformanceViolation] = []
    /// Things worth knowing that are not failures (a store that expires every cursor when
    /// reopened, writes that threw under load).
    public var notes: [String] = []

    /// Creates an empty report for a run with `seed`.
    public init(seed: UInt64) {
        self.seed = seed
    }

    /// A summary line, then every violation, skip and note.
    public var description: String {
        var lines = [
            "ChangeFeedConformance (seed \(seed)): \(passed.count) laws held, \(violations.count) broke, \(skipped.count) skipped"
        ]
        lines += violations.map(\.description)
        lines += skipped.map(\.description)
        lines += notes.map { "note: \($0)" }
        return lines.joined(separator: "\n")
    }
}
