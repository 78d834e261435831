import Foundation
import Repositories
import RepositoriesTestSupport
import RepositoriesTesting
import Testing

/// The server keeps titles in lower case.
@Sendable private func lowercasingTitles(_ entity: Item) -> Item {
    var entity = entity
    entity.title = entity.title.lowercased()
    return entity
}

/// A conditional write (`If-Match`) whose answer was lost, to a server that normalises what
/// it stores: the next sync finds the remote at a version that is neither the change nor its
/// base, and cannot tell its own write from another device's. It sends the same request
/// again first (the same tag, the same key), so a server that applied it answers from its
/// record and one that did not refuses the stale tag, and the change is settled again.
@Suite struct OfflineFirstLostConditionalAnswerTests {
    static let policies: [(String, ConflictPolicy<Item>)] = [
        ("lastWriterWins", .lastWriterWins),
        ("serverWins", .serverWins),
        ("mergeFields", .mergeFields(tie: .remote)),
        ("merge", .merge { _, local, remote in item(local.id, local.revision + remote.revision + 100) }),
    ]

    /// A save of an entity the remote holds (sent with `If-Match`), or of one it does not (a
    /// create if absent), whose answer was lost.
    @Test(arguments: policies.indices, [true, false])
    func aLandedConditionalWriteIsAppliedOnce(_ index: Int, remoteHoldsIt: Bool) async throws {
        let (name, policy) = Self.policies[index]
        let remote = HostileRemote<Item>(remoteHoldsIt ? [item(1)] : [], versionTags: true)
        remote.normalize(lowercasingTitles)
        let device = try await FileDevice(remote, conflicts: policy)
        try await device.repository.sync()
        try await device.repository.save(item(1, 2))
        remote.loseNextAnswers(1)
        await #expect(throws: RepositoryError.self) { try await device.repository.sync() }
        try await device.repository.sync()

        let context = "\(name), \(remoteHoldsIt ? "If-Match" : "create"): \(remote.requests)"
        #expect(remote.timesApplied(item(1, 2)) == 1, "\(context)")
        #expect(remote.overapplied.isEmpty, "\(context)")
        #expect(try await device.outbox.changes().isEmpty, "\(context)")
        #expect(try await device.repository.fetch(id: 1) == lowercasingTitles(item(1, 2)), "\(context)")
        #expect(try await device.repository.snapshot(Query()).conflicts.isEmpty, "its own write: \(context)")
        try await device.close()
    }

    /// A create goes out and its answer never comes (held in the network); the user deletes
    /// the entity; the next sync finds no copy. The create still on its way is sent again
    /// first, as it was, so the server answers it from its record (or applies it now), and
    /// the delete follows: when the held create lands, it is a replay, and the entity stays
    /// deleted (found in review: it came back).
    @Test(arguments: policies.indices)
    func aDeleteMadeWhileItsCreateWasUnansweredStaysDeleted(_ index: Int) async throws {
        let (name, policy) = Self.policies[index]
        let remote = HostileRemote<Item>(versionTags: true)
        let device = try await FileDevice(remote, conflicts: policy)
        try await device.repository.save(item(1, 1))
        remote.answerLate(next: 1)
        await #expect(throws: RepositoryError.self) { try await device.repository.sync() }
        try await device.repository.delete(id: 1)
        try await device.repository.sync()
        #expect(remote.releaseLateWrites() == 1)

        #expect(try await remote.fetch(id: 1) == nil, "\(name): \(remote.requests)")
        #expect(remote.timesApplied(item(1, 1)) <= 1, "\(name)")
        #expect(try await device.repository.fetch(id: 1) == nil, "\(name)")
        #expect(try await device.outbox.changes().isEmpty, "\(name)")
        try await device.close()
    }

    @Test(arguments: policies.indices)
    func anUnansweredConditionalWriteThatNeverLandedMeetsTheOtherDevicesChange(_ index: Int) async throws {
        let (name, policy) = Self.policies[index]
        let remote = HostileRemote<Item>([item(1)], versionTags: true)
        remote.normalize(lowercasingTitles)
        let device = try await FileDevice(remote, conflicts: policy)
        try await device.repository.sync()
        try await device.repository.save(item(1, 2))
        remote.answerLate(next: 1)  // held: it never lands
        await #expect(throws: RepositoryError.self) { try await device.repository.sync() }
        try await remote.save(item(1, 3))  // another device, meanwhile

        try await device.repository.sync()
        #expect(remote.timesApplied(item(1, 2)) <= 1, "\(name)")
        #expect(remote.overapplied.isEmpty, "\(name): \(remote.overapplied)")
        #expect(try await device.outbox.changes().isEmpty, "\(name)")
        let conflicts = try await device.repository.snapshot(Query()).conflicts
        #expect(conflicts.map(\.entityID) == [1], "\(name): the other device's change was a conflict")
        #expect(try await device.repository.fetch(id: 1) == (try await remote.fetch(id: 1)), "\(name)")
        try await device.close()
    }
}

/// A server without version tags: a save over another device's copy goes out unconditionally
/// (the local version wins), and its answer never comes while the request is held in the
/// network. The next sync must send that very request again, unconditionally and under the
/// same key, so the held one lands as a replay. Found by the scratch app (seed 4,
/// `.lastWriterWins`, tags off): the retry went out as a create under the same key, which the
/// server refused because a copy exists; the refused create took a new key, and the held
/// request then landed as a second application of the same change.
@Suite struct OfflineFirstLostUnconditionalAnswerTests {
    static let policies: [(String, ConflictPolicy<Item>)] = [
        ("lastWriterWins", .lastWriterWins),
        ("mergeFields(tie: .local)", .mergeFields(tie: .local)),
    ]

    @Test(arguments: policies.indices)
    func anUnconditionalRetryStaysUnconditional(_ index: Int) async throws {
        let (name, policy) = Self.policies[index]
        let remote = HostileRemote<Item>([item(1)], versionTags: false)
        let device = try await FileDevice(remote, conflicts: policy)
        try await device.repository.save(item(1, 2))  // made with no base: never pulled
        remote.answerLate(next: 1)
        await #expect(throws: RepositoryError.self) { try await device.repository.sync() }

        try await device.repository.sync()
        #expect(remote.releaseLateWrites() == 1)
        #expect(remote.timesApplied(item(1, 2)) == 1, "\(name): \(remote.requests)")
        #expect(remote.overapplied.isEmpty, "\(name): \(remote.overapplied)")
        #expect(try await remote.fetch(id: 1) == item(1, 2), "\(name)")
        #expect(try await device.outbox.changes().isEmpty, "\(name)")
        try await device.close()
    }
}
