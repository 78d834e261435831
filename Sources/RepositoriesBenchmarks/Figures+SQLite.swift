import Foundation
import Repositories
import RepositoriesSQLite

extension BenchmarkRun {
    /// Figure 5: `SQLiteRepository` against the raw SQLite C API doing the same work.
    func sqliteFigures() async throws -> [Figure] {
        let count = durableOperations
        let inserts = try await Measurement.median(repetitions: repetitions) {
            let store = try await SQLiteRepository<BenchmarkEntity>(fileURL: file("store.sqlite"))
            for id in 0..<count { try await store.save(.make(id)) }
            try await store.close()
            return count
        }
        let rawInserts = try await Measurement.median(repetitions: repetitions) {
            let raw = try RawSQLite(path: file("raw.sqlite").path)
            for id in 0..<count { try raw.save(.make(id)) }
            return count
        }

        let size = 10_000
        let entities = (0..<size).map { BenchmarkEntity.make($0) }
        let storeURL = file("reads.sqlite")
        let store = try await SQLiteRepository<BenchmarkEntity>(fileURL: storeURL)
        try await store.save(contentsOf: entities)
        let raw = try RawSQLite(path: file("raw-reads.sqlite").path)
        try raw.saveInOneTransaction(entities)
        let order = readOrder(size: size, count: quick ? 2_000 : 20_000)
        let reads = try await Measurement.median(repetitions: repetitions) {
            for id in order { _ = try await store.fetch(id: id) }
            return order.count
        }
        let rawReads = try await Measurement.median(repetitions: repetitions) {
            for id in order { _ = try raw.fetch(id: id) }
            return order.count
        }
        try await store.close()
        return [
            .cost(
                5, "SQLiteRepository durable insert", measured: inserts, baseline: rawInserts,
                baselineName: "raw SQLite C API, same durability", target: 1.3),
            .cost(
                5, "SQLiteRepository fetch(id:), 10k rows", measured: reads, baseline: rawReads,
                baselineName: "raw SQLite C API, same statement", target: 1.3),
        ]
    }
}
