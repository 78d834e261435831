import Repositories
import Synchronization

extension BenchmarkRun {
    /// Figure 2: a cache hit through cache-aside over remote-first over a store, against
    /// the raw locked dictionary.
    func stackFigures() async throws -> [Figure] {
        let size = 10_000
        let entities = (0..<size).map { BenchmarkEntity.make($0) }
        let stack = InMemoryRepository<BenchmarkEntity>(entities)
            .fallback(to: InMemoryRepository<BenchmarkEntity>())
            .cached(in: InMemoryRepository<Cached<BenchmarkEntity>>(), timeToLive: .seconds(3_600))
        for id in 0..<size { _ = try await stack.fetch(id: id) }  // every entry fresh in the cache
        let raw = RawLockedDictionary()
        for entity in entities { await raw.save(entity) }
        let order = readOrder(size: size, count: memoryOperations / 4)

        // Any cache with a time to live reads a clock on a hit: the raw dictionary plus one
        // read of the default clock is the floor of such a cache, shown beside the figure.
        let deadline = ContinuousClock.now.advanced(by: .seconds(3_600))
        // Measured one after the other, as figure 1: these loops are bound by memory, and
        // taking turns would start each run with the others' data in the caches.
        var checksum = 0
        let hits = try await Measurement.median(repetitions: repetitions) {
            for id in order { checksum &+= try await stack.fetch(id: id)?.name.utf8.count ?? 0 }
            return order.count
        }
        let rawHits = await Measurement.median(repetitions: repetitions) {
            for id in order { checksum &+= await raw.fetch(id: id)?.name.utf8.count ?? 0 }
            return order.count
        }
        let floor = await Measurement.median(repetitions: repetitions) {
            for id in order {
                if let entity = await raw.fetch(id: id), ContinuousClock.now < deadline {
                    checksum &+= entity.name.utf8.count
                }
            }
            return order.count
        }
        blackHole(checksum)
        return [
            .cost(
                2, "cache hit: cached(in:) over fallback(to:) over a store, 10k", measured: hits,
                baseline: rawHits,
                baselineName: "raw locked dictionary", target: 2,
                note: String(
                    format:
                        "raw dictionary + one ContinuousClock read (the floor with a time to live): %@, %@",
                    Format.time(floor.nanosecondsPerOperation),
                    Format.ratio(floor.nanosecondsPerOperation / rawHits.nanosecondsPerOperation)))
        ]
    }

    /// Figure 7: 1,000 concurrent misses for one key, through `cached(in:)` and through
    /// `.coalescing()`; the figure is the number of calls that reached the source.
    func coalescingFigures() async throws -> [Figure] {
        let cacheSource = CountingSource()
        let cached = cacheSource.cached(
            in: InMemoryRepository<Cached<BenchmarkEntity>>(), timeToLive: .seconds(60))
        let cacheCalls = try await missesTogether(on: cached, counting: cacheSource)
        let coalescingSource = CountingSource()
        let coalescing = coalescingSource.coalescing()
        let coalescedCalls = try await missesTogether(on: coalescing, counting: coalescingSource)
        func figure(_ name: String, _ calls: Int) -> Figure {
            Figure(
                number: 7, name: name, measured: "\(calls) source call\(calls == 1 ? "" : "s")",
                baseline: "1,000 concurrent misses", ratio: Double(calls), target: 1, goal: .atMost)
        }
        return [
            figure("cached(in:): 1,000 concurrent misses for one key", cacheCalls),
            figure(".coalescing(): 1,000 concurrent fetches of one key", coalescedCalls),
        ]
    }

    private func missesTogether(
        on repository: some Repository<BenchmarkEntity, Int>, counting source: CountingSource
    ) async throws -> Int {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<1_000 {
                group.addTask { _ = try await repository.fetch(id: 42) }
            }
            try await group.waitForAll()
        }
        return source.fetches
    }
}

/// A source that counts its fetches and takes 50 ms to answer, like a slow API, so that
/// concurrent misses overlap.
final class CountingSource: Repository, Sendable {
    private let calls = Mutex(0)
    private let base = InMemoryRepository<BenchmarkEntity>([.make(42)])

    var fetches: Int { calls.withLock { $0 } }

    func fetch(id: Int) async throws -> BenchmarkEntity? {
        calls.withLock { $0 += 1 }
        try await Task.sleep(for: .milliseconds(50))
        return try await base.fetch(id: id)
    }

    func fetchAll() async throws -> [BenchmarkEntity] { try await base.fetchAll() }
    func save(_ entity: BenchmarkEntity) async throws { try await base.save(entity) }
    func save(contentsOf entities: [BenchmarkEntity]) async throws {
        try await base.save(contentsOf: entities)
    }
    func delete(id: Int) async throws { try await base.delete(id: id) }
    func deleteAll() async throws { try await base.deleteAll() }
}
