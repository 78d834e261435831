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
        return Measurement(runs: runs)
    }

    /// Runs each body once per repetition, taking turns, and returns each one's median, in
    /// the order given.
    ///
    /// A figure's ratio compares bodies measured here: taking turns exposes them alike to
    /// what else the machine is doing (other processes, the disk's queue), where measuring
    /// one body's repetitions and then the other's would let a busy spell land on one only.
    static func interleaved(
        repetitions: Int, _ first: () async throws -> Int, _ second: () async throws -> Int
    ) async rethrows -> (Measurement, Measurement) {
        let runs = try await interleaved(repetitions: repetitions, count: 2) { index in
            index == 0 ? try await first() : try await second()
        }
        return (runs[0], runs[1])
    }

    /// Runs each body once per repetition, taking turns; see
    /// ``interleaved(repetitions:_:_:)``.
    static func interleaved(
        repetitions: Int, _ first: () async throws -> Int, _ second: () async throws -> Int,
        _ third: () async throws -> Int
    ) async rethrows -> (Measurement, Measurement, Measurement) {
        let runs = try await interleaved(repetitions: repetitions, count: 3) { index in
            switch index {
            case 0: try await first()
            case 1: try await second()
            default: try await third()
            }
        }
        return (runs[0], runs[1], runs[2])
    }

    // The bodies stay non-escaping closures, so the optimizer inlines the measured loops
    // into them as it does for `median`; an array of closures would make them escaping.
    private static func interleaved(
        repetitions: Int, count: Int, _ body: (Int) async throws -> Int
    ) async rethrows -> [Measurement] {
        var runs = [[Double]](repeating: [], count: count)
        for _ in 0..<repetitions {
            for index in 0..<count {
                let clock = ContinuousClock()
                var operations = 0
                let elapsed = try await clock.measure { operations = try await body(index) }
                runs[index].append(elapsed.nanoseconds / Double(max(operations, 1)))
            }
        }
        return runs.map(Measurement.init(runs:))
    }
}

extension Measurement {
    /// The median of `runs`.
    init(runs: [Double]) {
        let sorted = runs.sorted()
        self.init(nanosecondsPerOperation: sorted[sorted.count / 2], runs: runs)
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
