import Foundation
import Repositories

extension BenchmarkRun {
    /// Figure 3: durable single saves, one writer and eight, against raw SQLite at the same
    /// durability and against the articles' whole-array file.
    func fileSaveFigures() async throws -> [Figure] {
        let count = durableOperations
        // The three durable runs take turns each repetition, so a busy spell of the shared
        // disk lands on every side instead of one.
        let (single, concurrent, sqlite) = try await Measurement.interleaved(repetitions: repetitions) {
            let store = try await FileRepository<BenchmarkEntity>(fileURL: file("single"))
            for id in 0..<count { try await store.save(.make(id)) }
            try await store.close()
            return count
        } _: {
            let store = try await FileRepository<BenchmarkEntity>(fileURL: file("eight"))
            try await withThrowingTaskGroup(of: Void.self) { group in
                for writer in 0..<8 {
                    group.addTask {
                        for step in 0..<(count / 8) { try await store.save(.make(writer * 1_000_000 + step)) }
                    }
                }
                try await group.waitForAll()
            }
            try await store.close()
            return count / 8 * 8
        } _: {
            let raw = try RawSQLite(path: file("raw.sqlite").path)
            for id in 0..<count { try raw.save(.make(id)) }
            return count
        }
        let articleCount = quick ? 5 : 20
        let article = try await Measurement.median(repetitions: repetitions) {
            let whole = WholeArrayFile(url: file("whole.json"), entities: (0..<10_000).map { .make($0) })
            for id in 0..<articleCount { try whole.save(.make(10_000 + id)) }
            return articleCount
        }
        let fileAtTenThousand = try await Measurement.median(repetitions: repetitions) {
            let store = try await FileRepository<BenchmarkEntity>(fileURL: file("ten-thousand"))
            try await store.save(contentsOf: (0..<10_000).map { .make($0) })
            for id in 0..<count { try await store.save(.make(10_000 + id)) }
            try await store.close()
            return count
        }
        // The articles' file is never flushed to disk: it survives a process kill, not a
        // power loss. FileRepository with `.never` makes the same promise.
        let relaxedCount = count * 10
        let relaxedAtTenThousand = try await Measurement.median(repetitions: repetitions) {
            let store = try await FileRepository<BenchmarkEntity>(
                fileURL: file("relaxed"), options: .init(durability: .never))
            try await store.save(contentsOf: (0..<10_000).map { .make($0) })
            for id in 0..<relaxedCount { try await store.save(.make(10_000 + id)) }
            try await store.close()
            return relaxedCount
        }
        return [
            .speed(
                3, "FileRepository durable save, 1 writer", measured: single, baseline: sqlite,
                baselineName: "raw SQLite, WAL, synchronous=FULL", target: 1),
            .speed(
                3, "FileRepository durable save, 8 concurrent writers", measured: concurrent,
                baseline: sqlite,
                baselineName: "raw SQLite, WAL, synchronous=FULL", target: 1),
            .speed(
                3, "FileRepository save into 10k entities, same promise (durability .never)",
                measured: relaxedAtTenThousand, baseline: article,
                baselineName: "articles' whole-array file at 10k", target: 100,
                note: "both survive a process kill, neither a power loss"),
            .speed(
                3, "FileRepository durable save (fsync) into 10k entities", measured: fileAtTenThousand,
                baseline: article, baselineName: "articles' whole-array file at 10k (no fsync)", target: nil,
                note: "a stronger promise than the baseline's"),
        ]
    }

    /// Figure 4: one batch of many entities, then reopening the store, against the floor of
    /// decoding the same entities from one JSON array.
    func batchAndReopenFigures() async throws -> [Figure] {
        let entities = (0..<batchSize).map { BenchmarkEntity.make($0) }
        let array = try JSONEncoder().encode(entities)
        let floor = try await Measurement.median(repetitions: repetitions) {
            _ = try JSONDecoder().decode([BenchmarkEntity].self, from: array)
            return 1
        }
        let batch = try await Measurement.median(repetitions: repetitions) {
            let store = try await FileRepository<BenchmarkEntity>(fileURL: file("batch"))
            try await store.save(contentsOf: entities)
            try await store.close()
            return 1
        }
        let url = file("reopen")
        let written = try await FileRepository<BenchmarkEntity>(fileURL: url)
        try await written.save(contentsOf: entities)
        try await written.close()
        let reopen = try await Measurement.median(repetitions: repetitions) {
            let store = try await FileRepository<BenchmarkEntity>(fileURL: url)
            try await store.close()
            return 1
        }
        let label = "\(batchSize / 1_000)k"
        return [
            .cost(
                4, "FileRepository save(contentsOf:) of \(label), one fsync", measured: batch,
                baseline: floor,
                baselineName: "JSON-decoding \(label) from one array", target: nil),
            .cost(
                4, "FileRepository reopen holding \(label)", measured: reopen, baseline: floor,
                baselineName: "JSON-decoding \(label) from one array", target: 1.5),
        ] + (try await reopenByCodecFigures())
    }

    /// Figure 4, by codec: reopening a store of `PeerEntity` (the GRDB comparison's entity)
    /// written in the binary codec, and one written in JSON (as every file from before codecs
    /// is), against JSON-decoding the same entities from one array; the three take turns.
    private func reopenByCodecFigures() async throws -> [Figure] {
        let entities = (0..<batchSize).map { PeerEntity.make($0) }
        let floor = try JSONDecodeFloor(entities)
        let url = file("reopen-none")
        var urls: [EntityCodec.Identifier: URL] = [:]
        for codec in [EntityCodec.Identifier.binary, .json] {
            let url = file("reopen-\(codec)")
            let store = try await FileRepository<PeerEntity>(fileURL: url, options: .init(codec: codec))
            try await store.save(contentsOf: entities)
            try await store.close()
            urls[codec] = url
        }
        func reopen(_ codec: EntityCodec.Identifier) async throws -> Int {
            let store = try await FileRepository<PeerEntity>(fileURL: urls[codec, default: url])
            let count = try await store.count()
            try await store.close()
            guard count == entities.count else {
                throw RepositoryError.corrupted(
                    "The \(codec) store reopened with \(count) entities", location: url.path)
            }
            return 1
        }
        let (decoded, binary, json) = try await Measurement.interleaved(
            repetitions: repetitions,
            {
                _ = try floor.decodeAll(as: PeerEntity.self)
                return 1
            },
            { try await reopen(.binary) }, { try await reopen(.json) })
        let label = "\(batchSize / 1_000)k PeerEntity"
        return [
            .cost(
                4, "FileRepository reopen holding \(label), binary codec", measured: binary,
                baseline: decoded,
                baselineName: "JSON-decoding \(label) from one array", target: 0.35),
            .cost(
                4, "FileRepository reopen holding \(label), JSON codec", measured: json, baseline: decoded,
                baselineName: "JSON-decoding \(label) from one array", target: nil),
        ]
    }
}
