/// The error ``ChangeFeedConformance/run()`` throws: every broken law of the run, each with
/// the operations that broke it.
public struct ChangeFeedConformanceFailure: Error, Sendable, CustomStringConvertible {
    /// The whole report, violations included.
    public var report: ChangeFeedConformanceReport

    /// The broken laws.
    public var violations: [ChangeFeedConformanceViolation] { report.violations }

    /// The laws broken, without repeats, in the order they were found.
    public var brokenLaws: [ChangeFeedLaw] {
        var seen = Set<ChangeFeedLaw>()
        return report.violations.map(\.law).filter { seen.insert($0).inserted }
    }

    /// The report.
    public var description: String { report.description }
}
