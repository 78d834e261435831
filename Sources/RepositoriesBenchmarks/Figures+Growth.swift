import Foundation
import Repositories
import RepositoriesSQLite

extension BenchmarkRun {
    /// Figure 6: the cost of `fetch(id:)` and `save` at each size, for every store.
    ///
    /// Part of any growth is the machine's: a larger table no longer fits the processor's
    /// caches, so even a plain dictionary slows down. So a baseline is measured at every size
    /// in the same run (a raw locked dictionary, or for SQLite the raw C API), and the ratio
    /// is the store's growth from the smallest size to the largest divided by the
    /// baseline's: what the store itself adds as it grows. Both series stay in the row.
    func growthFigures() async throws -> [Figure] {
        var figures: [Figure] = []
        let dictionary = Baseline(name: "raw locked dictionary") { size in
            let raw = RawLockedDictionary()
            for id in 0..<size { await raw.save(.make(id)) }
            return raw
        }
        try await figures += growth(
            "InMemoryRepository", against: dictionary, reads: memoryOperations * 10 / 4,
            writes: memoryOperations / 4
        ) { size in
            InMemoryRepository<BenchmarkEntity>((0..<size).map { .make($0) })
        }
        // FileRepository reads from memory as fast as the in-memory store, so it is read as
        // often; a read count sized for disk would leave the figure to noise.
        try await figures += growth(
            "FileRepository", against: dictionary, reads: memoryOperations * 10 / 4, writes: durableOperations
        ) { size in
            let store = try await FileRepository<BenchmarkEntity>(fileURL: file("growth"))
            try await store.save(contentsOf: (0..<size).map { .make($0) })
            return store
        }
        let rawSQLite = Baseline(name: "raw SQLite C API") { size in
            let raw = try RawSQLite(path: file("growth-raw.sqlite").path)
            try raw.saveInOneTransaction((0..<size).map { .make($0) })
            return raw
        }
        try await figures += growth(
            "SQLiteRepository", against: rawSQLite, reads: durableOperations * 10, writes: durableOperations
        ) { size in
            let store = try await SQLiteRepository<BenchmarkEntity>(fileURL: file("growth.sqlite"))
            try await store.save(contentsOf: (0..<size).map { .make($0) })
            return store
        }
        return figures
    }

    /// What a store's growth is divided by: something that fetches and saves by ID, made at
    /// each size. Generic, not an existential, so its calls are as direct as the store's.
    private struct Baseline<Raw: KeyedBaseline> {
        var name: String
        var make: (Int) async throws -> Raw
    }

    private func growth<R: Repository<BenchmarkEntity, Int>, Raw: KeyedBaseline>(
        _ name: String, against baseline: Baseline<Raw>, reads: Int, writes count: Int,
        make: (Int) async throws -> R
    ) async throws -> [Figure] {
        var fetches: [Point] = []
        var saves: [Point] = []
        for size in sizes {
            let store = try await make(size)
            let raw = try await baseline.make(size)
            let order = readOrder(size: size, count: max(reads, count))
            var checksum = 0
            let fetch = try await Measurement.median(repetitions: repetitions) {
                for id in order { checksum &+= try await store.fetch(id: id)?.name.utf8.count ?? 0 }
                return order.count
            }
            let rawFetch = try await Measurement.median(repetitions: repetitions) {
                for id in order { checksum &+= try await raw.fetch(id: id)?.name.utf8.count ?? 0 }
                return order.count
            }
            blackHole(checksum)
            fetches.append(Point(size: size, store: fetch, baseline: rawFetch))
            // Saves replace stored entities, so the store stays at its size while measured.
            // Each run writes other content than the run before: SQLite skips writing a row
            // rewritten with the same bytes, and a commit with nothing written needs no fsync.
            let updates = [1, 2].map { revision in
                order.prefix(count).map { BenchmarkEntity.make($0, revision: revision) }
            }
            var storeRuns = 0
            let save = try await Measurement.median(repetitions: repetitions) {
                storeRuns += 1
                for entity in updates[storeRuns % 2] { try await store.save(entity) }
                return count
            }
            var rawRuns = 0
            let rawSave = try await Measurement.median(repetitions: repetitions) {
                rawRuns += 1
                for entity in updates[rawRuns % 2] { try await raw.save(entity) }
                return count
            }
            saves.append(Point(size: size, store: save, baseline: rawSave))
        }
        return [
            row(name, "fetch(id:)", fetches, baseline: baseline.name),
            row(name, "save", saves, baseline: baseline.name),
        ]
    }

    /// One size's cost per operation, for the store and its baseline.
    private struct Point {
        var size: Int
        var store: Measurement
        var baseline: Measurement
    }

    private func row(_ store: String, _ operation: String, _ points: [Point], baseline: String) -> Figure {
        guard let first = points.first, let last = points.last else {
            return Figure(
                number: 6, name: store, measured: "", baseline: "", ratio: 0, target: nil, goal: .none)
        }
        func series(_ cost: (Point) -> Measurement) -> String {
            points.map { "\(Self.label($0.size)): \(Format.time(cost($0).nanosecondsPerOperation))" }
                .joined(separator: ", ")
        }
        func growth(_ cost: (Point) -> Measurement) -> Double {
            cost(last).nanosecondsPerOperation / cost(first).nanosecondsPerOperation
        }
        let storeGrowth = growth(\.store)
        let baselineGrowth = growth(\.baseline)
        return Figure(
            number: 6,
            name: "\(store) \(operation), \(Self.label(first.size)) → \(Self.label(last.size)) entities",
            measured: "\(series(\.store)) (grew \(Format.ratio(storeGrowth)))",
            baseline: "\(baseline): \(series(\.baseline)) (grew \(Format.ratio(baselineGrowth)))",
            ratio: storeGrowth / baselineGrowth, target: 1.5, goal: .atMost,
            note: "ratio: the store's growth over the baseline's")
    }

    static func label(_ size: Int) -> String {
        size >= 1_000_000 ? "\(size / 1_000_000)M" : "\(size / 1_000)k"
    }
}

/// A baseline of figure 6: fetches and saves by ID.
protocol KeyedBaseline {
    func fetch(id: Int) async throws -> BenchmarkEntity?
    func save(_ entity: BenchmarkEntity) async throws
}

extension RawLockedDictionary: KeyedBaseline {}
extension RawSQLite: KeyedBaseline {}
