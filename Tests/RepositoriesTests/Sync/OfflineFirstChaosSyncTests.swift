import Foundation
import Repositories
import RepositoriesTesting
import Testing

/// Three devices against one remote that fails half its calls at random, with random
/// network loss and restarts: 10,000 seeded operations across the three conflict policies,
/// then every device syncs with the remote answering again and all must agree, with no
/// acknowledged change lost.
@Suite struct OfflineFirstChaosSyncTests {
    /// A device's `FileRepository` and outbox in `directory`. Other tests of this process
    /// start child processes; one being spawned holds copies of the descriptors until it
    /// execs, so a store reopened at that instant may have to wait a moment for the lock.
    @Sendable static func openDevice(_ directory: URL) async throws -> SyncDeviceStores<FileRepository<Item>>
    {
        let local = try await FileRepository<Item>(
            fileURL: directory.appending(path: "items.store"), options: .init(lockWait: .seconds(5)))
        let outbox = try await Outbox<Item>(
            fileURL: directory.appending(path: "items.outbox"), lockWait: .seconds(5))
        return SyncDeviceStores(local: local, outbox: outbox) {
            try await local.close()
            try await outbox.close()
        }
    }

    static let operations = 10_000
    static let policies = ["lastWriterWins", "serverWins", "merge"]
    /// Merged entities are recognisable: their revision starts at a million.
    static let mergedRevision = 1_000_000

    @Test(arguments: policies)
    func threeDevicesConvergeDespiteHalfTheRemoteCallsFailing(_ policy: String) async throws {
        let seed: UInt64 = 20_250_613
        let merges = Shared(0)
        let conflicts: ConflictPolicy<Item> =
            switch policy {
            case "lastWriterWins": .lastWriterWins
            case "serverWins": .serverWins
            default:
                .merge { _, local, remote in
                    merges.update { $0 += 1 }
                    return item(local.id, Self.mergedRevision + local.revision % Self.mergedRevision)
                }
            }
        let remotes = Shared<[FaultInjectingRepository<InMemoryRepository<Item>>]>([])
        let ramDisk = URL(filePath: "/dev/shm", directoryHint: .isDirectory)
        let options = SyncConformanceOptions<FaultInjectingRepository<InMemoryRepository<Item>>>(
            seed: seed, devices: 3, sequences: 1,
            operationsPerSequence: (Self.operations + Self.policies.count - 1) / Self.policies.count,
            entityCount: 16, offlineProbability: 0.3, syncProbability: 0.15, restartProbability: 0.02,
            beforeFinalSync: { remote in remote.reset() },
            directory: FileManager.default.fileExists(atPath: ramDisk.path) ? ramDisk : nil)
        let report = try await SyncConformance(
            options: options, conflicts: conflicts,
            makeRemote: {
                let remote = FaultInjectingRepository(InMemoryRepository<Item>())
                remote.injectRandomFaults(probability: 0.5, seed: seed)
                remotes.update { $0.append(remote) }
                return remote
            },
            openDevice: Self.openDevice,
            // Even indexes: the fixture's 128 KiB payload (index 7) would make this a disk benchmark.
            makeEntity: { item($0 * 2, $1) }
        ).run()

        #expect(report.violations.isEmpty)
        let remote = try #require(remotes.value.first)
        #expect(remote.injectedFaultCount > 250, "the remote failed often")
        let final = try await remote.base.fetchAll()
        #expect(!final.isEmpty)
        if policy == "merge" {
            #expect(merges.value > 10, "conflicts were merged")
            #expect(report.passed.contains(.mergesAreKept))
            #expect(final.contains { $0.revision >= Self.mergedRevision }, "merge results reached the remote")
        }
    }

    /// The same three devices, with a remote that behaves like a real server: it loses a
    /// fifth of its answers after applying the write, applies a third of the batches in part
    /// before refusing them (422), and stores titles in lower case; 1,500 operations a policy.
    /// The laws the engine breaks there are known issues naming the finding of issue 23.
    @Test(arguments: policies)
    func threeDevicesAgainstAHostileRemote(_ policy: String) async throws {
        let conflicts: ConflictPolicy<Item> =
            switch policy {
            case "lastWriterWins": .lastWriterWins
            case "serverWins": .serverWins
            default:
                .merge { _, local, _ in
                    item(local.id, Self.mergedRevision + local.revision % Self.mergedRevision)
                }
            }
        let ramDisk = URL(filePath: "/dev/shm", directoryHint: .isDirectory)
        let options = SyncConformanceOptions<InMemoryRepository<Item>>(
            seed: 20_250_613, devices: 3, sequences: 1, operationsPerSequence: 1_500, entityCount: 16,
            directory: FileManager.default.fileExists(atPath: ramDisk.path) ? ramDisk : nil,
            lostAnswerProbability: 0.2, halfAppliedBatchProbability: 0.3,
            normalize: { entity in
                var entity = entity
                entity.title = entity.title.lowercased()
                return entity
            })
        let suite = SyncConformance(
            options: options, conflicts: conflicts, makeRemote: { InMemoryRepository<Item>() },
            openDevice: Self.openDevice,
            makeEntity: { item($0 * 2, $1) })
        let report: SyncConformanceReport
        do {
            report = try await suite.run()
        } catch let failure as SyncConformanceFailure {
            report = failure.report
        }
        let broken = Set(report.violations.map(\.law))
        let known: Set<SyncConformanceLaw> = policy == "merge" ? [.mergesAreKept] : []
        #expect(broken.subtracting(known).isEmpty, "\(report)")
        if policy == "merge" {
            withKnownIssue(
                "finding 1: against a normalising server a landed merge looks unsent and is merged and applied again",
                isIntermittent: true
            ) {
                #expect(!broken.contains(.mergesAreKept), "\(report)")
            }
        }
    }
}
