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
