import Foundation

extension PeerRun {
    /// Every workload, in the table's order: reading back first, then writing.
    func workloads() async throws -> [WorkloadResult] {
        let entities = (0..<entityCount).map { PeerEntity.make($0) }
        // One filled store per contender, each written by its own batch save.
        var filled: [URL] = []
        for contender in contenders {
            let url = file("\(contender.name)-filled")
            let store = try await contender.open(url)
            try await store.save(contentsOf: entities)
            try await store.close()
            filled.append(url)
        }
        var results = [try await reopenAndReadAll(filled, expected: entities)]
        results += try await readsOnOpenStores(filled, expected: entities)
        results.append(try await batchSave(entities))
        results.append(try await durableSingleSaves(writers: 1))
        results.append(try await durableSingleSaves(writers: 8))
        for url in filled { try discard(url) }
        results.append(try await highestBelowAThreshold())
        return results
    }

    /// (f) A list screen's query: the 20 highest scores below a threshold, over a store of
    /// `entityCount` opened before the clock starts, for thresholds spread over the range.
    /// Every contender must give the same IDs in the same order.
    func highestBelowAThreshold() async throws -> WorkloadResult {
        let entities = (0..<entityCount).map { RankedEntity.make($0, of: entityCount) }
        var stores: [any RankedStore] = []
        var urls: [URL] = []
        for contender in contenders {
            let url = file("\(contender.name)-ranked")
            let store = try await contender.openRanked(url)
            try await store.save(contentsOf: entities)
            stores.append(store)
            urls.append(url)
        }
        let highest = Double(entityCount) / 4
        let thresholds = (0..<queryCount).map { highest * Double(($0 &* 37) % 100 + 1) / 101 }
        for threshold in thresholds.prefix(5) {
            let answers = try await stores.asyncMap { try await $0.highest(20, below: threshold) }
            if let index = answers.indices.first(where: { answers[$0] != answers.last }) {
                throw PeerBenchmarkError(
                    "\(contenders[index].name) answered \(answers[index].prefix(5))… for the 20 highest "
                        + "below \(threshold), GRDB \(answers.last?.prefix(5) ?? [])…")
            }
        }
        let measurements = try await Measurement.interleaved(runs: runs, contenders: contenders.count) {
            index in
            try await Sample.timing(operations: thresholds.count) {
                for threshold in thresholds
                where try await stores[index].highest(20, below: threshold).count != 20 {
                    throw PeerBenchmarkError(
                        "\(contenders[index].name) found fewer than 20 below \(threshold)")
                }
            }
        }
        for store in stores { try await store.close() }
        for url in urls { try discard(url) }
        return WorkloadResult(
            workload: "20 highest scores below a threshold, \(sizeLabel) (GRDB: an index on score)",
            operation: "query", contenders: contenders, measurements: measurements)
    }

    /// (a) What an app launch pays: open the store, read every entity, close it.
    func reopenAndReadAll(_ filled: [URL], expected: [PeerEntity]) async throws -> WorkloadResult {
        let measurements = try await Measurement.interleaved(runs: runs, contenders: contenders.count) {
            index in
            var read: [PeerEntity] = []
            let sample = try await Sample.timing(operations: 1) {
                let store = try await contenders[index].open(filled[index])
                read = try await store.fetchAll()
                try await store.close()
            }
            try check(read, equals: expected, contender: contenders[index])
            return sample
        }
        return WorkloadResult(
            workload: "reopen and read everything (open, fetchAll, close)", operation: "run",
            contenders: contenders, measurements: measurements)
    }

    /// (b) `fetchAll` and (c) `fetch(id:)` of IDs spread over the store, on stores opened
    /// once.
    func readsOnOpenStores(_ filled: [URL], expected: [PeerEntity]) async throws -> [WorkloadResult] {
        var stores: [any PeerStore] = []
        for (contender, url) in zip(contenders, filled) { stores.append(try await contender.open(url)) }
        let all = try await Measurement.interleaved(runs: runs, contenders: contenders.count) { index in
            var read: [PeerEntity] = []
            let sample = try await Sample.timing(operations: 1) { read = try await stores[index].fetchAll() }
            try check(read, equals: expected, contender: contenders[index])
            return sample
        }
        let order = readOrder(size: entityCount, count: lookupCount)
        let lookups = try await Measurement.interleaved(runs: runs, contenders: contenders.count) { index in
            try await Sample.timing(operations: order.count) {
                for id in order where try await stores[index].fetch(id: id) == nil {
                    throw PeerBenchmarkError("\(contenders[index].name) lost entity \(id)")
                }
            }
        }
        for store in stores { try await store.close() }
        return [
            WorkloadResult(
                workload: "fetchAll on an open store", operation: "call", contenders: contenders,
                measurements: all),
            WorkloadResult(
                workload: "fetch(id:) of random IDs", operation: "fetch", contenders: contenders,
                measurements: lookups),
        ]
    }

    /// (d) Every entity in one durable batch (ours: `save(contentsOf:)`; GRDB: one write
    /// transaction of inserts), into a new store.
    func batchSave(_ entities: [PeerEntity]) async throws -> WorkloadResult {
        let measurements = try await Measurement.interleaved(runs: runs, contenders: contenders.count) {
            index in
            let url = file("batch")
            let store = try await contenders[index].open(url)
            let sample = try await Sample.timing(operations: 1) { try await store.save(contentsOf: entities) }
            try await store.close()
            try discard(url)
            return sample
        }
        return WorkloadResult(
            workload: "one batch save of \(sizeLabel)", operation: "batch", contenders: contenders,
            measurements: measurements)
    }

    /// (e) Durable single saves into a new store from `writers` tasks at once, each save its
    /// own call (GRDB: its own `write`), each returning once it is on disk.
    func durableSingleSaves(writers: Int) async throws -> WorkloadResult {
        let perWriter = durableSaves / writers
        let measurements = try await Measurement.interleaved(runs: runs, contenders: contenders.count) {
            index in
            let url = file("saves")
            let store = try await contenders[index].open(url)
            let sample = try await Sample.timing(operations: perWriter * writers) {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for writer in 0..<writers {
                        group.addTask {
                            for step in 0..<perWriter {
                                try await store.save(.make(writer * 1_000_000 + step))
                            }
                        }
                    }
                    try await group.waitForAll()
                }
            }
            try await store.close()
            try discard(url)
            return sample
        }
        return WorkloadResult(
            workload: writers == 1
                ? "durable single saves, 1 writer" : "durable single saves, \(writers) writers",
            operation: "save", contenders: contenders, measurements: measurements)
    }

    /// Throws unless `read` holds exactly `expected` (in any order): a contender that read
    /// back other data, or less, would make its time meaningless.
    func check(_ read: [PeerEntity], equals expected: [PeerEntity], contender: Contender) throws {
        guard read.count == expected.count else {
            throw PeerBenchmarkError(
                "\(contender.name) read \(read.count) entities back, not \(expected.count)")
        }
        let sorted = read.sorted { $0.id < $1.id }
        if let index = sorted.indices.first(where: { sorted[$0] != expected[$0] }) {
            throw PeerBenchmarkError(
                "\(contender.name) read entity \(expected[index].id) back as \(sorted[index]), "
                    + "not \(expected[index])")
        }
    }
}
