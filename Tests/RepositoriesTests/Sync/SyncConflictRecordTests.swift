import Foundation
import Repositories
import RepositoriesTestSupport
import RepositoriesTesting
import Testing

private typealias ConflictDevice = FileDevice<HostileRemote<Errand>>

/// Every conflict a sync settles is kept durably, with its three versions, its result and
/// what decided, until the app acknowledges it (issue 23: "No one learns what a conflict
/// cost").
@Suite struct SyncConflictRecordTests {
    static let base = Errand(id: 7)

    /// The first value of `stream`.
    private func first<Element>(_ stream: AsyncStream<Element>) async -> Element? {
        for await element in stream { return element }
        return nil
    }

    @Test func aFieldMergeIsKeptAcrossARestartUntilAcknowledged() async throws {
        let remote = HostileRemote<Errand>([Self.base])
        let device = try await ConflictDevice(remote)
        try await device.repository.sync()
        try await device.repository.save(Self.base.with(\.notes, "call back"))
        try await remote.save(Self.base.with(\.status, "done"))  // another device, meanwhile
        let report = try await device.repository.sync()

        let merged = Self.base.with(\.notes, "call back").with(\.status, "done")
        #expect(report.conflictedIDs == [7])
        let conflicts = try #require(await first(device.repository.conflicts()))
        #expect(conflicts.count == 1)
        let conflict = try #require(conflicts.first)
        #expect(conflict.entityID == 7)
        #expect(conflict.base == Self.base)
        #expect(conflict.local == Self.base.with(\.notes, "call back"))
        #expect(conflict.remote == Self.base.with(\.status, "done"))
        #expect(conflict.result == merged)
        #expect(
            conflict.resolution
                == .mergedByField(localFields: ["notes"], remoteFields: ["status"], tiedFields: [:]))
        #expect(try await remote.fetch(id: 7) == merged)
        #expect(try await device.repository.snapshot(Query()).conflicts == conflicts)

        // After a restart the record is still there, and an acknowledgement forgets it.
        try await device.close()
        let reopened = try await ConflictDevice(remote, in: device.directory)
        #expect(await first(reopened.repository.conflicts()) == conflicts)
        try await reopened.repository.acknowledge(conflict: conflict)
        #expect(await first(reopened.repository.conflicts()) == [])
        #expect(try await reopened.repository.snapshot(Query()).conflicts.isEmpty)
        try await reopened.repository.acknowledge(conflict: conflict)  // twice: no error
        try await reopened.close()
    }

    /// What each policy decides, as the record says it and as both sides end.
    struct PolicyCase: Sendable, CustomTestStringConvertible {
        var name: String
        var policy: ConflictPolicy<Errand>
        var resolution: ConflictResolution
        var result: Errand
        var testDescription: String { name }
    }

    static let policies: [PolicyCase] = [
        PolicyCase(
            name: "lastWriterWins", policy: .lastWriterWins, resolution: .localKept,
            result: base.with(\.notes, "call back")),
        PolicyCase(
            name: "serverWins", policy: .serverWins, resolution: .remoteKept,
            result: base.with(\.status, "done")),
        PolicyCase(
            name: "merge",
            policy: .merge { _, local, remote in local.with(\.status, remote.status + " (merged)") },
            resolution: .customMerge, result: base.with(\.notes, "call back").with(\.status, "done (merged)")),
        PolicyCase(
            name: "mergeFields(tie: .local)", policy: .mergeFields(tie: .local),
            resolution: .mergedByField(localFields: ["notes"], remoteFields: ["status"], tiedFields: [:]),
            result: base.with(\.notes, "call back").with(\.status, "done")),
    ]

    @Test(arguments: policies)
    func everyPolicyKeepsARecordOfWhatItDecided(_ row: PolicyCase) async throws {
        let remote = HostileRemote<Errand>([Self.base])
        let device = try await ConflictDevice(remote, conflicts: row.policy)
        try await device.repository.sync()
        try await device.repository.save(Self.base.with(\.notes, "call back"))
        try await remote.save(Self.base.with(\.status, "done"))
        try await device.repository.sync()

        let conflict = try #require(await first(device.repository.conflicts())?.first)
        #expect(conflict.resolution == row.resolution)
        #expect(conflict.result == row.result)
        #expect(try await remote.fetch(id: 7) == row.result)
        #expect(try await device.repository.fetch(id: 7) == row.result)
        try await device.close()
    }

    @Test func aDeleteOverARemoteChangeIsKeptWithANilSide() async throws {
        let remote = HostileRemote<Errand>([Self.base])
        let device = try await ConflictDevice(remote)
        try await device.repository.sync()
        try await device.repository.delete(id: 7)
        try await remote.save(Self.base.with(\.status, "done"))
        try await device.repository.sync()

        let conflict = try #require(await first(device.repository.conflicts())?.first)
        #expect(conflict.local == nil)
        #expect(conflict.resolution == .tieTookRemote)
        #expect(conflict.result == Self.base.with(\.status, "done"))
        #expect(try await device.repository.fetch(id: 7) == Self.base.with(\.status, "done"))
        try await device.close()
    }

    @Test func aConflictSettledAgainAfterAFailedSendIsKeptOnce() async throws {
        let remote = HostileRemote<Errand>([Self.base])
        let device = try await ConflictDevice(remote, conflicts: .lastWriterWins)
        try await device.repository.sync()
        try await device.repository.save(Self.base.with(\.notes, "call back"))
        try await remote.save(Self.base.with(\.status, "done"))
        remote.answerLate(next: 1)  // the send times out and never lands
        await #expect(throws: RepositoryError.self) { try await device.repository.sync() }
        #expect(await first(device.repository.conflicts())?.count == 1)

        try await device.repository.sync()  // settles the same conflict again, and sends
        #expect(await first(device.repository.conflicts())?.count == 1, "the same conflict is kept once")
        #expect(try await remote.fetch(id: 7) == Self.base.with(\.notes, "call back"))
        try await device.close()
    }

    @Test func noConflictNoRecord() async throws {
        let remote = HostileRemote<Errand>([Self.base])
        let device = try await ConflictDevice(remote)
        try await device.repository.sync()
        try await device.repository.save(Self.base.with(\.notes, "call back"))
        try await device.repository.save(Errand(id: 8))
        try await device.repository.sync()
        #expect(await first(device.repository.conflicts()) == [])
        try await device.close()
    }

    @Test func theStreamFollowsNewConflictsAndAcknowledgements() async throws {
        let remote = HostileRemote<Errand>([Self.base])
        let device = try await ConflictDevice(remote)
        try await device.repository.sync()
        var conflicts = device.repository.conflicts().makeAsyncIterator()
        #expect(await conflicts.next() == [])

        try await device.repository.save(Self.base.with(\.notes, "call back"))
        try await remote.save(Self.base.with(\.status, "done"))
        try await device.repository.sync()
        let kept = try #require(await conflicts.next())
        #expect(kept.map(\.entityID) == [7])

        try await device.repository.acknowledge(conflict: try #require(kept.first))
        #expect(await conflicts.next() == [])
        try await device.close()
    }

    @Test func aConflictKeptBeforeAnAppUpdateReadsAfterIt() async throws {
        let directory = try TemporaryDirectory()
        let outboxURL = directory.url.appending(path: "errands.outbox")
        // Version 1 of the app settled a conflict and kept it.
        let remoteV1 = HostileRemote<ErrandV1>([ErrandV1(id: 7, title: "Fix the door")])
        let outboxV1 = try await Outbox<ErrandV1>(fileURL: outboxURL)
        let deviceV1 = remoteV1.offlineFirst(
            local: InMemoryRepository<ErrandV1>(), outbox: outboxV1, conflicts: .serverWins,
            automaticSync: nil)
        try await deviceV1.sync()
        try await deviceV1.save(ErrandV1(id: 7, title: "Fix the back door"))
        try await remoteV1.save(ErrandV1(id: 7, title: "Fix the front door"))
        try await deviceV1.sync()
        try await outboxV1.close()

        // Version 2 reads it through the same migrations as its changes.
        let migrations = try Migrations<Errand>(
            .upgrade(from: 1) { (old: ErrandV1) in Errand(id: old.id, title: old.title) })
        let outbox = try await Outbox<Errand>(fileURL: outboxURL, migrations: migrations)
        let device = HostileRemote<Errand>().offlineFirst(
            local: InMemoryRepository<Errand>(), outbox: outbox, automaticSync: nil)
        let conflict = try #require(await first(device.conflicts())?.first)
        #expect(conflict.base == Errand(id: 7, title: "Fix the door"))
        #expect(conflict.local == Errand(id: 7, title: "Fix the back door"))
        #expect(conflict.remote == Errand(id: 7, title: "Fix the front door"))
        #expect(conflict.result == Errand(id: 7, title: "Fix the front door"))
        #expect(conflict.resolution == .remoteKept)
        try await outbox.close()
    }
}

/// Version 1 of the errand, as the app before the update stored it.
private struct ErrandV1: Codable, Identifiable, Sendable, Equatable {
    var id: Int
    var title: String
}
