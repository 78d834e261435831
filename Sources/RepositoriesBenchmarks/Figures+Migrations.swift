import Foundation
import Repositories

/// Version 1 of ``BenchmarkEntity``: `name` was called `title`. What the migration figure's
/// store holds before it is opened at version 2.
struct BenchmarkEntityV1: Codable, Identifiable, Sendable {
    var id: Int
    var title: String
    var price: Double
    var tags: [String]
    var updatedAt: Date

    static func make(_ id: Int) -> BenchmarkEntityV1 {
        let current = BenchmarkEntity.make(id)
        return BenchmarkEntityV1(
            id: id, title: current.name, price: current.price, tags: current.tags,
            updatedAt: current.updatedAt)
    }
}

extension BenchmarkRun {
    /// Figure 10: opening a store whose every record was written by version 1 of the entity,
    /// so opening upgrades each and rewrites the file at version 2 (temporary file, fsync,
    /// rename), against opening the same entities already at version 2.
    func migrationFigures() async throws -> [Figure] {
        let migrations = try Migrations<BenchmarkEntity>(
            .upgrade(from: 1) { (old: BenchmarkEntityV1) in
                BenchmarkEntity(
                    id: old.id, name: old.title, price: old.price, tags: old.tags, updatedAt: old.updatedAt)
            })
        let pristine = file("v1")
        let old = try await FileRepository<BenchmarkEntityV1>(fileURL: pristine)
        try await old.save(contentsOf: (0..<batchSize).map { BenchmarkEntityV1.make($0) })
        try await old.close()
        // A fresh version 1 file for every run, copied before the clock starts.
        let copies = try (0..<repetitions).map { run in
            let copy = file("v1-copy-\(run)")
            try FileManager.default.copyItem(at: pristine, to: copy)
            return copy
        }
        let current = file("v2")
        let written = try await FileRepository<BenchmarkEntity>(fileURL: current, migrations: migrations)
        try await written.save(contentsOf: (0..<batchSize).map { BenchmarkEntity.make($0) })
        try await written.close()

        var run = 0
        let (migrating, plain) = try await Measurement.interleaved(repetitions: repetitions) {
            let store = try await FileRepository<BenchmarkEntity>(
                fileURL: copies[run], migrations: migrations)
            run += 1
            guard store.upgradedRecordCount == batchSize else { throw MigrationDidNotRun() }
            try await store.close()
            return 1
        } _: {
            let store = try await FileRepository<BenchmarkEntity>(fileURL: current, migrations: migrations)
            try await store.close()
            return 1
        }
        let label = "\(batchSize / 1_000)k"
        return [
            .cost(
                10, "FileRepository open of \(label) that needs a migration (upgrade, rewrite, fsync)",
                measured: migrating, baseline: plain, baselineName: "the same open at the current version",
                target: nil, note: "once per app update: the next open costs the baseline")
        ]
    }

    /// The migrating open found nothing to upgrade: the figure would measure the wrong thing.
    struct MigrationDidNotRun: Error {}
}
