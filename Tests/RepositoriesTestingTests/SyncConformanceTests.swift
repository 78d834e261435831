import Foundation
import Repositories
import RepositoriesTesting
import Synchronization
import Testing

/// A device's stores as most apps keep them: a file store and an outbox in its directory.
@Sendable func fileDevice(_ directory: URL) async throws -> SyncDeviceStores<
    FileRepository<ConformanceEntity>
> {
    // Other tests of this process start child processes; one being spawned holds copies of
    // the descriptors until it execs, so a store reopened at that instant may wait a moment.
    let local = try await FileRepository<ConformanceEntity>(
        fileURL: directory.appending(path: "entities.store"), options: .init(lockWait: .seconds(5)))
    let outbox = try await Outbox<ConformanceEntity>(
        fileURL: directory.appending(path: "entities.outbox"), lockWait: .seconds(5))
    return SyncDeviceStores(local: local, outbox: outbox) {
        try await local.close()
        try await outbox.close()
    }
}

/// A remote that answers every `forgetEvery`-th save as done without storing it.
final class ForgetfulRemote: Repository, Sendable {
    typealias Entity = ConformanceEntity
    typealias ID = Int

    let base = InMemoryRepository<ConformanceEntity>()
    let forgetEvery: Int
    private let saves = Mutex(0)

    init(forgetEvery: Int) { self.forgetEvery = forgetEvery }

    private func forgets() -> Bool {
        saves.withLock { count in
            count += 1
            return count % forgetEvery == 0
        }
    }

    func fetch(id: Int) async throws -> ConformanceEntity? { try await base.fetch(id: id) }
    func fetchAll() async throws -> [ConformanceEntity] { try await base.fetchAll() }
    func save(_ entity: ConformanceEntity) async throws {
        if forgets() { return }
        try await base.save(entity)
    }
    func save(contentsOf entities: [ConformanceEntity]) async throws {
        if forgets() { return }
        try await base.save(contentsOf: entities)
    }
    func delete(id: Int) async throws { try await base.delete(id: id) }
    func deleteAll() async throws { try await base.deleteAll() }
}

/// The title as a server that keeps it in lower case stores it.
@Sendable func lowercasedTitle(_ entity: ConformanceEntity) -> ConformanceEntity {
    var entity = entity
    entity.title = entity.title.lowercased()
    return entity
}

extension SyncConformance {
    /// The report of a run, whether or not a law broke.
    func reportEvenIfBroken() async throws -> SyncConformanceReport {
        do {
            return try await run()
        } catch let failure as SyncConformanceFailure {
            return failure.report
        }
    }
}

/// Checks a run against a hostile remote: every law holds but the ones today's engine breaks
/// there, each a known issue naming its finding of issue 23, so a fixed engine flags it.
func expectHostileRun(
    _ report: SyncConformanceReport, merging: Bool, sourceLocation: SourceLocation = #_sourceLocation
) {
    let broken = Set(report.violations.map(\.law))
    let known: Set<SyncConformanceLaw> = merging ? [.mergesAreKept] : []
    #expect(broken.subtracting(known).isEmpty, "\(report)", sourceLocation: sourceLocation)
    if merging {
        // A merged result now goes out under a key of its own (finding 3 is fixed), but a
        // server that normalises makes a landed merge look unsent, so it is merged and applied
        // again, and a later merge may overtake the one the law follows: it breaks in some runs.
        withKnownIssue(
            "finding 1: against a normalising server a landed merge looks unsent and is merged and applied again",
            isIntermittent: true
        ) {
            #expect(!broken.contains(.mergesAreKept), "\(report)", sourceLocation: sourceLocation)
        }
    }
}

@Suite struct SyncConformanceTests {
    static let merge = ConflictPolicy<ConformanceEntity>.merge { _, local, remote in
        .make(index: local.id, revision: 1_000_000 + local.revision + remote.revision)
    }

    /// The policy a test argument names.
    static func policy(named name: String) -> ConflictPolicy<ConformanceEntity> {
        switch name {
        case "lastWriterWins": .lastWriterWins
        case "serverWins": .serverWins
        default: merge
        }
    }

    @Test(arguments: ["lastWriterWins", "serverWins", "merge"])
    func theOfflineFirstRepositoryConformsUnderEveryPolicy(_ policy: String) async throws {
        let conflicts = Self.policy(named: policy)
        let report = try await SyncConformance(
            options: SyncConformanceOptions(seed: 11),
            conflicts: conflicts, makeRemote: { InMemoryRepository<ConformanceEntity>() },
            openDevice: fileDevice
        ).run()
        #expect(report.violations.isEmpty)
        #expect(report.passed.contains(.acknowledgedChangesAreAccountedFor))
        #expect(report.passed.contains(.mergesAreKept) == (policy == "merge"))
    }

    /// The same runs with the remote losing a fifth of its answers after applying the write,
    /// applying a third of the batches in part before refusing them, and storing titles in
    /// lower case. The laws that still hold are asserted; the ones today's engine breaks are
    /// known issues naming the finding of issue 23 they show.
    @Test(arguments: ["lastWriterWins", "serverWins", "merge"])
    func theOfflineFirstRepositoryAgainstAHostileRemote(_ policy: String) async throws {
        let conflicts = Self.policy(named: policy)
        let report = try await SyncConformance(
            options: SyncConformanceOptions(
                seed: 11, lostAnswerProbability: 0.2, halfAppliedBatchProbability: 0.3,
                normalize: lowercasedTitle),
            conflicts: conflicts, makeRemote: { InMemoryRepository<ConformanceEntity>() },
            openDevice: fileDevice
        ).reportEvenIfBroken()
        expectHostileRun(report, merging: policy == "merge")
    }

    @Test func aRemoteThatAcknowledgesWithoutStoringFails() async throws {
        let suite = SyncConformance(
            options: SyncConformanceOptions(seed: 11), conflicts: .lastWriterWins,
            makeRemote: { ForgetfulRemote(forgetEvery: 5) }, openDevice: fileDevice)
        let failure = await #expect(throws: SyncConformanceFailure.self) { try await suite.run() }
        #expect(failure?.brokenLaws.contains(.remoteKeepsWhatItAcknowledged) == true)
        #expect(failure?.description.contains("reproduce with seed 11") == true)
        #expect(failure?.description.contains("save(⟨#") == true, "the operations are listed")
    }

    @Test func aDeviceWhoseOutboxIsLostOnRestartFails() async throws {
        // Each open takes a new outbox file: the changes queued before a restart vanish.
        let opened = Mutex(0)
        let suite = SyncConformance(
            options: SyncConformanceOptions(seed: 11, restartProbability: 0.1), conflicts: .lastWriterWins,
            makeRemote: { InMemoryRepository<ConformanceEntity>() },
            openDevice: { directory in
                let number = opened.withLock { count in
                    count += 1
                    return count
                }
                let local = InMemoryRepository<ConformanceEntity>()
                let outbox = try await Outbox<ConformanceEntity>(
                    fileURL: directory.appending(path: "outbox-\(number)"))
                return SyncDeviceStores(local: local, outbox: outbox) { try await outbox.close() }
            })
        let failure = await #expect(throws: SyncConformanceFailure.self) { try await suite.run() }
        #expect(failure?.brokenLaws.contains(.acknowledgedChangesAreAccountedFor) == true)
        #expect(failure?.brokenLaws.contains(.remoteKeepsWhatItAcknowledged) == false, "the remote is sound")
    }

    @Test func eachViolationIsReportedAtTheCallersLine() async {
        let suite = SyncConformance(
            options: SyncConformanceOptions(seed: 11, sequences: 1), conflicts: .lastWriterWins,
            makeRemote: { ForgetfulRemote(forgetEvery: 2) }, openDevice: fileDevice)
        let expectedLine = #line + 2
        let reported = await capturingTestFailures {
            await suite.expectConformance()
        }
        #expect(!reported.isEmpty)
        #expect(reported.allSatisfy { $0.line == expectedLine && $0.fileID == #fileID })
        #expect(reported.allSatisfy { $0.message.contains("SyncConformance (seed 11)") }, "\(reported)")
    }
}
