import Foundation

/// The settings of one run, and the scratch directory its stores live in.
struct PeerRun: Sendable {
    let quick: Bool
    /// Runs of each workload per contender; the median is reported.
    let runs: Int
    let directory: URL
    /// Ours first, GRDB last: the table's columns, in this order.
    let contenders: [Contender] = [.file, .sqlite, .grdb]

    init(quick: Bool, runs: Int?) throws {
        self.quick = quick
        self.runs = runs ?? (quick ? 3 : 5)
        directory = FileManager.default.temporaryDirectory.appending(
            path: "peer-benchmark-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// Entities in the stores that are read back, and in the batch.
    var entityCount: Int { quick ? 2_000 : 100_000 }
    /// `fetch(id:)` calls per run.
    var lookupCount: Int { quick ? 2_000 : 20_000 }
    /// Queries per run of the query workload.
    var queryCount: Int { quick ? 200 : 2_000 }
    /// Durable single saves per run, whatever the number of writers.
    var durableSaves: Int { quick ? 40 : 400 }
    /// How the table names the store size: "100k".
    var sizeLabel: String { "\(entityCount / 1_000)k" }

    /// A new path in the scratch directory.
    func file(_ name: String) -> URL { directory.appending(path: "\(name)-\(UUID().uuidString)") }

    /// Removes a store that is closed: its file and SQLite's write-ahead log and shared memory.
    func discard(_ url: URL) throws {
        for path in [url.path, url.path + "-wal", url.path + "-shm"]
        where FileManager.default.fileExists(atPath: path) {
            try FileManager.default.removeItem(atPath: path)
        }
    }

    func removeScratch() throws {
        try FileManager.default.removeItem(at: directory)
    }

    /// IDs to read, spread over `0..<size` in a fixed pseudo-random order (the root
    /// benchmark's order).
    func readOrder(size: Int, count: Int) -> [Int] {
        (0..<count).map { ($0 &* 2_654_435_761) % size }
    }
}

extension Array {
    /// The results of `transform` on each element, in order, one at a time.
    func asyncMap<T>(_ transform: (Element) async throws -> T) async throws -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
