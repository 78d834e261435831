/// What one run of one contender did: how long its measured part took, and how many
/// operations that part did.
struct Sample: Sendable {
    var elapsed: Duration
    var operations: Int

    /// Times `body`, which does `operations` operations; setup and teardown stay outside it.
    static func timing(operations: Int, _ body: () async throws -> Void) async throws -> Sample {
        let elapsed = try await ContinuousClock().measure { try await body() }
        return Sample(elapsed: elapsed, operations: operations)
    }

    var nanosecondsPerOperation: Double {
        let (seconds, attoseconds) = elapsed.components
        return (Double(seconds) * 1e9 + Double(attoseconds) / 1e9) / Double(max(operations, 1))
    }
}

/// One contender's figure for one workload: the median time per operation over the runs.
struct Measurement: Codable, Sendable {
    /// Nanoseconds per operation, median of the runs.
    var nanosecondsPerOperation: Double
    /// Each run's nanoseconds per operation, in run order.
    var runs: [Double]

    init(runs: [Double]) {
        let sorted = runs.sorted()
        self.nanosecondsPerOperation = sorted[sorted.count / 2]
        self.runs = runs
    }

    /// Runs every contender once per run, taking turns, and returns each one's median, in
    /// contender order.
    ///
    /// Each run starts with the next contender (run 0 with the first, run 1 with the second,
    /// and so on), so a busy spell of the shared disk or CPU, or the cost of going first,
    /// lands on each of them alike.
    static func interleaved(
        runs: Int, contenders: Int, _ body: (_ contender: Int) async throws -> Sample
    ) async throws -> [Measurement] {
        var samples = [[Double]](repeating: [], count: contenders)
        for run in 0..<runs {
            for turn in 0..<contenders {
                let contender = (run + turn) % contenders
                samples[contender].append(try await body(contender).nanosecondsPerOperation)
            }
        }
        return samples.map(Measurement.init(runs:))
    }
}
