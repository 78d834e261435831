import Foundation
import Repositories
import RepositoriesSQLite

extension BenchmarkRun {
    /// Figure 5: `SQLiteRepository` against the raw SQLite C API doing the same work.
    ///
    /// Both sides run at the same durability (WAL, `synchronous=FULL`, one commit per
    /// insert, one statement per commit), open and close their database inside each run, and
    /// take turns (see ``Measurement/interleaved(repetitions:_:)``), since a durable insert's
    /// time is mostly the disk's, and the disk is shared with whatever else runs.
    func sqliteFigures() async throws -> [Figure] {
        let count = durableOperations
        let (inserts, rawInserts, shapedInserts) = try await Measurement.interleaved(
            repetitions: repetitions,
            {
                let store = try await SQLiteRepository<BenchmarkEntity>(fileURL: file("store.sqlite"))
                for id in 0..<count { try await store.save(.make(id)) }
                try await store.close()
                return count
            },
            {
                let raw = try RawSQLite(path: file("raw.sqlite").path)
                for id in 0..<count { try raw.save(.make(id)) }
                return count
            },
            {
                let raw = try RawSQLite(path: file("raw-shaped.sqlite").path, shape: .repositoryTable)
                for id in 0..<count { try raw.save(.make(id)) }
                return count
            })

        let size = 10_000
        let entities = (0..<size).map { BenchmarkEntity.make($0) }
        let storeURL = file("reads.sqlite")
        let store = try await SQLiteRepository<BenchmarkEntity>(fileURL: storeURL)
        try await store.save(contentsOf: entities)
        let raw = try RawSQLite(path: file("raw-reads.sqlite").path)
        try raw.saveInOneTransaction(entities)
        let order = readOrder(size: size, count: quick ? 2_000 : 20_000)
        let (reads, rawReads) = try await Measurement.interleaved(
            repetitions: repetitions,
            {
                for id in order { _ = try await store.fetch(id: id) }
                return order.count
            },
            {
                for id in order { _ = try raw.fetch(id: id) }
                return order.count
            })
        try await store.close()
        let shapeShare = shapedInserts.nanosecondsPerOperation / rawInserts.nanosecondsPerOperation
        return [
            .cost(
                5, "SQLiteRepository durable insert", measured: inserts, baseline: rawInserts,
                baselineName: "raw SQLite C API, same durability", target: 1.3,
                note: String(
                    format:
                        "the raw C API into the store's table shape (seq, id index, crc): %@, %@ of the baseline",
                    Format.time(shapedInserts.nanosecondsPerOperation), Format.ratio(shapeShare))),
            .cost(
                5, "SQLiteRepository fetch(id:), 10k rows", measured: reads, baseline: rawReads,
                baselineName: "raw SQLite C API, same statement", target: 1.3),
        ]
    }
}
