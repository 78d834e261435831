/// One row of the report: a measurement, the baseline it is held against in the same run,
/// and the target for their ratio.
struct Figure: Codable, Sendable {
    /// How the ratio is read against the target.
    enum Goal: String, Codable, Sendable {
        /// The ratio must be at most the target (a cost compared with a floor).
        case atMost
        /// The ratio must be at least the target (a rate compared with a rival).
        case atLeast
        /// Just recorded.
        case none
    }

    var number: Int
    var name: String
    var measured: String
    var baseline: String
    var ratio: Double
    var target: Double?
    var goal: Goal
    var note: String = ""

    var met: Bool? {
        guard let target else { return nil }
        switch goal {
        case .atMost: return ratio <= target
        case .atLeast: return ratio >= target
        case .none: return nil
        }
    }

    /// A figure whose ratio is `measured / baseline` time per operation: lower is better.
    static func cost(
        _ number: Int, _ name: String, measured: Measurement, baseline: Measurement, baselineName: String,
        target: Double?, note: String = ""
    ) -> Figure {
        Figure(
            number: number, name: name, measured: Format.time(measured.nanosecondsPerOperation),
            baseline: "\(baselineName): \(Format.time(baseline.nanosecondsPerOperation))",
            ratio: measured.nanosecondsPerOperation / baseline.nanosecondsPerOperation, target: target,
            goal: target == nil ? .none : .atMost, note: note)
    }

    /// A figure whose ratio is `measured / baseline` operations per second: higher is better.
    static func speed(
        _ number: Int, _ name: String, measured: Measurement, baseline: Measurement, baselineName: String,
        target: Double?, note: String = ""
    ) -> Figure {
        Figure(
            number: number, name: name, measured: Format.rate(measured.operationsPerSecond),
            baseline: "\(baselineName): \(Format.rate(baseline.operationsPerSecond))",
            ratio: measured.operationsPerSecond / baseline.operationsPerSecond, target: target,
            goal: target == nil ? .none : .atLeast, note: note)
    }

    var markdownRow: String {
        let targetText: String =
            switch (goal, target) {
            case (.atMost, let target?): "≤ \(Format.ratio(target))"
            case (.atLeast, let target?): "≥ \(Format.ratio(target))"
            default: "—"
            }
        let verdict = met.map { $0 ? "met" : "**missed**" } ?? "—"
        return
            "| \(number) | \(name) | \(measured) | \(baseline) | \(Format.ratio(ratio)) | \(targetText) | \(verdict) | \(note) |"
    }
}
