import Foundation

/// The report as a Markdown table: each contender's time per operation, then each of ours
/// against GRDB with the issue's verdict.
enum Table {
    static func markdown(_ report: Report, contenders: [Contender]) -> String {
        let ours = contenders.filter { !$0.isReference }
        let reference = contenders.first { $0.isReference }?.name ?? "GRDB"
        let header =
            ["\(report.entityCount / 1_000)k entities"] + contenders.map(\.name)
            + ours.map { "\($0.name) vs \(reference)" }
        var lines = [row(header), row(header.map { _ in "---" })]
        var met = 0
        var total = 0
        for result in report.workloads {
            var cells = ["\(result.workload), per \(result.operation)"]
            cells += result.figures.map { time($0.measurement.nanosecondsPerOperation) }
            for figure in result.figures {
                guard let speedup = figure.speedupOverGRDB else { continue }
                let verdict = speedup >= report.targetSpeedup ? "met" : "**missed**"
                met += speedup >= report.targetSpeedup ? 1 : 0
                total += 1
                cells.append(String(format: "%.2f× %@", speedup, verdict))
            }
            lines.append(row(cells))
        }
        lines.append("")
        lines.append(
            String(
                format:
                    "Ratio: %@'s time ÷ ours, so above 1× ours is faster. Target (issue 15): ≥ %.0f× on every "
                    + "workload; %d of %d met.", reference, report.targetSpeedup, met, total))
        return lines.joined(separator: "\n")
    }

    private static func row(_ cells: [String]) -> String { "| " + cells.joined(separator: " | ") + " |" }

    static func time(_ nanoseconds: Double) -> String {
        switch nanoseconds {
        case ..<1_000: String(format: "%.0f ns", nanoseconds)
        case ..<1_000_000: String(format: "%.2f µs", nanoseconds / 1_000)
        case ..<1_000_000_000: String(format: "%.1f ms", nanoseconds / 1_000_000)
        default: String(format: "%.2f s", nanoseconds / 1_000_000_000)
        }
    }
}
