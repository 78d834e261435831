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
