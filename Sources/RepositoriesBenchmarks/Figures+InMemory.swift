import Repositories

extension BenchmarkRun {
    /// Figure 1: `InMemoryRepository` against a raw locked dictionary, at 10,000 entities.
    func inMemoryFigures() async throws -> [Figure] {
        let size = 10_000
        let entities = (0..<size).map { BenchmarkEntity.make($0) }
        let store = InMemoryRepository<BenchmarkEntity>(entities)
        let raw = RawLockedDictionary()
        for entity in entities { await raw.save(entity) }
        let order = readOrder(size: size, count: memoryOperations)

        // Each loop consumes what it reads, so neither can be optimized away.
        var checksum = 0
        let fetch = try await Measurement.median(repetitions: repetitions) {
            for id in order { checksum &+= try await store.fetch(id: id)?.name.utf8.count ?? 0 }
            return order.count
        }
        let rawFetch = await Measurement.median(repetitions: repetitions) {
            for id in order { checksum &+= await raw.fetch(id: id)?.name.utf8.count ?? 0 }
            return order.count
        }
        blackHole(checksum)
        let updates = order.map { BenchmarkEntity.make($0, revision: 1) }
        let save = try await Measurement.median(repetitions: repetitions) {
            for entity in updates { try await store.save(entity) }
            return updates.count
        }
        let rawSave = await Measurement.median(repetitions: repetitions) {
            for entity in updates { await raw.save(entity) }
            return updates.count
        }
        return [
            .cost(
                1, "InMemoryRepository fetch(id:), 10k entities", measured: fetch, baseline: rawFetch,
                baselineName: "raw locked dictionary", target: 1.3),
            .cost(
                1, "InMemoryRepository save, 10k entities", measured: save, baseline: rawSave,
                baselineName: "raw locked dictionary", target: 1.3),
        ]
    }
}
