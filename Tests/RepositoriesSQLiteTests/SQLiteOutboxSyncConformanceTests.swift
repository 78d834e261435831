import Foundation
import Repositories
import RepositoriesSQLite
import RepositoriesTestSupport
import RepositoriesTesting
import Testing

/// The laws of offline-first sync with every device's outbox in its local SQLite database
/// (`Outbox(in:)`), against a remote that loses answers after applying, applies batches in
/// part, and normalises values, with restarts: the same suite the file outbox passes.
@Suite struct SQLiteOutboxSyncConformanceTests {
    @Sendable static func openDevice(_ directory: URL) async throws -> SyncDeviceStores<
        SQLiteRepository<FixtureEntity>
    > {
        let local = try await SQLiteRepository<FixtureEntity>(
            fileURL: directory.appending(path: "device.sqlite"))
        let outbox = try await Outbox(in: local, lockWait: .seconds(5))
        return SyncDeviceStores(local: local, outbox: outbox) {
            try await outbox.close()
            try await local.close()
        }
    }

    @Test(arguments: ["lastWriterWins", "serverWins"])
    func devicesWithTheirOutboxInSQLiteConvergeAgainstAHostileRemote(_ policy: String) async throws {
        let options = SyncConformanceOptions<InMemoryRepository<FixtureEntity>>(
            seed: 20_261_127, devices: 3, sequences: 2, operationsPerSequence: 300, entityCount: 12,
            restartProbability: 0.05, lostAnswerProbability: 0.2, halfAppliedBatchProbability: 0.3,
            normalize: { entity in
                var entity = entity
                entity.text = entity.text.uppercased()
                return entity
            })
        let report = try await SyncConformance(
            options: options, conflicts: policy == "serverWins" ? .serverWins : .lastWriterWins,
            makeRemote: { InMemoryRepository<FixtureEntity>() }, openDevice: Self.openDevice,
            makeEntity: { FixtureEntity.make($0, revision: $1) }
        ).run()
        #expect(report.violations.isEmpty, "\(report)")
        #expect(report.passed.contains(.changesAreAppliedOnce))
    }
}
