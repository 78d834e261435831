import Foundation
import Repositories
import RepositoriesTestSupport
import RepositoriesTesting
import Synchronization
import Testing

/// A batch the remote refuses is narrowed to one change a call; what each call learns is
/// kept, whatever a later call meets.
@Suite struct OfflineFirstNarrowingTests {
    /// Change 1 is refused alone (a 422); then change 2 meets the remote unreachable. Change 1
    /// stays rejected with its error; before, the transient failure of the rest of the run
    /// made it pending again, its refusal lost, while the sync's report said it was rejected.
    @Test func aRefusalFoundWhileNarrowingOutlivesALaterTransientFailure() async throws {
        let remote = NarrowingRemote()
        let device = try await Device(remote)
        try await device.notes.save(contentsOf: [item(1), item(2)])
        await #expect(throws: RepositoryError.self) { try await device.notes.sync() }

        guard case .rejected(let error) = try await device.notes.status(of: 1) else {
            Issue.record(
                "change 1 was refused alone, so it is rejected: \(try await device.notes.status(of: 1))")
            return
        }
        #expect(error.code == .rejected)
        guard case .pending(1, _) = try await device.notes.status(of: 2) else {
            Issue.record(
                "change 2 met a transient failure, so it waits: \(try await device.notes.status(of: 2))")
            return
        }
        try await device.close()
    }

    /// A batch applied up to its refused change: narrowing sends 1 alone (answered from its
    /// key), 13 alone (refused), and 2 alone meets the remote unreachable, so 3 is not sent.
    /// The next sync sends 3 under a key of its own: under the batch's key, the server
    /// answered with the batch's refusal, and 3 was shown refused with 13's error while the
    /// server never saw it (found by the scratch package run from the docs).
    @Test func aChangeLeftUnsentByAnInterruptedNarrowingIsNotAnsweredWithTheBatchsRefusal() async throws {
        let remote = HostileRemote<Item>([item(1), item(13), item(2), item(3)])
        remote.appliesBatchesItemByItem = true
        let device = try await FileDevice(remote, conflicts: .lastWriterWins)
        try await device.repository.sync()
        remote.refuse(13)
        remote.refuse(2, with: .unavailable("The server is down for a moment (test)"))
        try await device.repository.save(contentsOf: [item(1, 1), item(13, 1), item(2, 1), item(3, 1)])
        await #expect(throws: RepositoryError.self) { try await device.repository.sync() }
        #expect(remote.requests.first { $0.ids.count > 1 }?.ids == [1, 13, 2, 3], "\(remote.requests)")

        remote.accept(2)
        try await device.repository.sync()
        guard case .synced = try await device.repository.status(of: 3) else {
            Issue.record(
                "3 was never refused: \(try await device.repository.status(of: 3)), \(remote.requests)")
            return
        }
        #expect(try await remote.fetch(id: 3) == item(3, 1))
        #expect(try await remote.fetch(id: 2) == item(2, 1))
        guard case .rejected = try await device.repository.status(of: 13) else {
            Issue.record("13 is the one refused: \(try await device.repository.status(of: 13))")
            return
        }
        #expect(remote.overapplied.isEmpty)
        try await device.close()
    }
}

/// Refuses any write of entity 1 (`rejected`, as a 422) and any batch; a write of entity 2
/// alone finds the remote unreachable (`unavailable`).
final class NarrowingRemote: Repository, Sendable {
    typealias Entity = Item
    typealias ID = Int

    let base = InMemoryRepository<Item>()

    func fetch(id: Int) async throws -> Item? { try await base.fetch(id: id) }
    func fetchAll() async throws -> [Item] { try await base.fetchAll() }
    func fetch(ids: [Int]) async throws -> [Item] { try await base.fetch(ids: ids) }
    func save(_ entity: Item) async throws {
        if entity.id == 1 { throw RepositoryError.rejected("NarrowingRemote refuses entity 1") }
        throw RepositoryError.unavailable("NarrowingRemote cannot be reached for entity \(entity.id)")
    }
    func save(contentsOf entities: [Item]) async throws {
        throw RepositoryError.rejected("NarrowingRemote refuses batches holding entity 1")
    }
    func delete(id: Int) async throws { try await base.delete(id: id) }
    func delete(ids: [Int]) async throws { try await base.delete(ids: ids) }
    func deleteAll() async throws { try await base.deleteAll() }
}
