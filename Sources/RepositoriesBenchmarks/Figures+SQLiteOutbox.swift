import Foundation
import Repositories
import RepositoriesSQLite

extension BenchmarkRun {
    /// Figure 17: a write through `offlineFirst` whose outbox lives in the local SQLite
    /// database (`Outbox(in:)`: the change and the row in one transaction, one commit)
    /// against a plain `SQLiteRepository` save at the same durability, and against the same
    /// local store with the outbox in a journal file of its own (two durable writes at once).
    func sqliteOutboxFigures() async throws -> [Figure] {
        let count = durableOperations
        let (joint, plain, twoFiles) = try await Measurement.interleaved(repetitions: repetitions) {
            let local = try await SQLiteRepository<BenchmarkEntity>(fileURL: file("joint.sqlite"))
            return try await Self.offlineFirstSaves(count, local: local, outbox: try await Outbox(in: local))
        } _: {
            let store = try await SQLiteRepository<BenchmarkEntity>(fileURL: file("plain.sqlite"))
            for id in 0..<count { try await store.save(.make(id)) }
            try await store.close()
            return count
        } _: {
            let local = try await SQLiteRepository<BenchmarkEntity>(fileURL: file("apart.sqlite"))
            let outbox = try await Outbox<BenchmarkEntity>(fileURL: file("apart.outbox"))
            return try await Self.offlineFirstSaves(count, local: local, outbox: outbox)
        }
        return [
            .cost(
                17, "offlineFirst durable write, outbox in the local SQLite database (one transaction)",
                measured: joint, baseline: plain, baselineName: "SQLiteRepository durable save", target: nil,
                note: "its commit writes the outbox table's pages too"),
            .cost(
                17, "offlineFirst durable write, SQLite local store and the outbox in a file of its own",
                measured: twoFiles, baseline: plain, baselineName: "SQLiteRepository durable save",
                target: nil),
            .cost(
                17, "offlineFirst durable write, outbox in the database against the outbox in its own file",
                measured: joint, baseline: twoFiles, baselineName: "outbox in its own file", target: 1.0),
        ]
    }

    /// `count` durable saves, one at a time, through `offlineFirst` over `local` and `outbox`
    /// (a remote that is never reached), then both closed; returns `count`.
    private static func offlineFirstSaves(
        _ count: Int, local: SQLiteRepository<BenchmarkEntity>, outbox: Outbox<BenchmarkEntity>
    ) async throws -> Int {
        let items = InMemoryRepository<BenchmarkEntity>()
            .offlineFirst(local: local, outbox: outbox, conflicts: .lastWriterWins, automaticSync: nil)
        for id in 0..<count { try await items.save(.make(id)) }
        try await outbox.close()
        try await local.close()
        return count
    }
}
