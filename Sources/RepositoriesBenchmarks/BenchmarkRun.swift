import Foundation

/// The settings of one run, and the scratch directory its stores live in.
struct BenchmarkRun: Sendable {
    var quick: Bool
    var large: Bool
    let directory: URL

    init(quick: Bool, large: Bool) throws {
        self.quick = quick
        self.large = large
        directory = FileManager.default.temporaryDirectory.appending(
            path: "repositories-benchmark-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    func removeScratch() throws {
        try FileManager.default.removeItem(at: directory)
    }

    /// Runs of each measurement; the median is reported.
    var repetitions: Int { quick ? 3 : 7 }
    /// Store sizes for the growth figures.
    var sizes: [Int] {
        quick ? [1_000, 10_000] : large ? [1_000, 10_000, 100_000, 1_000_000] : [1_000, 10_000, 100_000]
    }
    /// In-memory operations per run.
    var memoryOperations: Int { quick ? 20_000 : 200_000 }
    /// Durable (fsync) operations per run.
    var durableOperations: Int { quick ? 40 : 400 }
    /// Entities in the batch-and-reopen figure.
    var batchSize: Int { quick ? 10_000 : 100_000 }

    func file(_ name: String) -> URL { directory.appending(path: "\(name)-\(UUID().uuidString)") }

    /// IDs to read, spread over `0..<size` in a fixed pseudo-random order.
    func readOrder(size: Int, count: Int) -> [Int] {
        (0..<count).map { ($0 &* 2_654_435_761) % size }
    }
}
