import Foundation

/// How long something took per operation: the median of several runs.
struct Measurement: Codable, Sendable {
    /// Nanoseconds per operation, median of the runs.
    var nanosecondsPerOperation: Double
    /// Each run's nanoseconds per operation.
    var runs: [Double]

    var operationsPerSecond: Double { 1e9 / nanosecondsPerOperation }

    /// Runs `body` `repetitions` times; each run reports how many operations it did.
    static func median(
        repetitions: Int, _ body: () async throws -> Int
    ) async rethrows -> Measurement {
        var runs: [Double] = []
        for _ in 0..<repetitions {
            let clock = ContinuousClock()
            var operations = 0
            let elapsed = try await clock.measure { operations = try await body() }
            runs.append(elapsed.nanoseconds / Double(max(operations, 1)))
        }
        let sorted = runs.sorted()
        return Measurement(nanosecondsPerOperation: sorted[sorted.count / 2], runs: runs)
    }
}

extension Duration {
    var nanoseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1e9 + Double(attoseconds) / 1e9
    }
}

/// A rendering of a per-operation time or a rate, for the table.
enum Format {
    static func time(_ nanoseconds: Double) -> String {
        switch nanoseconds {
        case ..<1_000: String(format: "%.0f ns", nanoseconds)
        case ..<1_000_000: String(format: "%.2f µs", nanoseconds / 1_000)
        case ..<1_000_000_000: String(format: "%.2f ms", nanoseconds / 1_000_000)
        default: String(format: "%.2f s", nanoseconds / 1_000_000_000)
        }
    }

    static func rate(_ perSecond: Double) -> String {
        perSecond >= 10_000
            ? String(format: "%.0fk/s", perSecond / 1_000) : String(format: "%.0f/s", perSecond)
    }

    static func ratio(_ value: Double) -> String { String(format: "%.2f×", value) }
}

/// Keeps a value alive past the optimizer, so the work that made it is measured.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}
