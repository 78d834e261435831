import Foundation
import Repositories
import RepositoriesTestSupport
import Synchronization
import Testing

/// A remote that refuses, before anything leaves, every call that touches an ID of 100 or more, as
/// `HTTPRepository` refuses an ID that names no single resource: a batch holding one such ID
/// is refused whole, reads included.
private final class PickyRemote: Repository, Sendable {
    typealias Entity = Item
    typealias ID = Int

    let base = InMemoryRepository<Item>()
    private let calls = Mutex<[String]>([])

    /// Every call that passed the check and reached the store, by name.
    var reached: [String] { calls.withLock { $0 } }

    private func check(_ ids: [Int], _ call: String) throws {
        if let bad = ids.first(where: { $0 >= 100 }) {
            throw RepositoryError.rejected(
                "The ID \(bad) names nothing on this remote", recovery: "Use an ID below 100",
                underlying: RefusedBeforeSending())
        }
        calls.withLock { $0.append(call) }
    }

    func fetch(id: Int) async throws -> Item? {
        try check([id], "fetch(id:)")
        return try await base.fetch(id: id)
    }
    func fetch(ids: [Int]) async throws -> [Item] {
        try check(ids, "fetch(ids:)")
        return try await base.fetch(ids: ids)
    }
    func fetchAll() async throws -> [Item] {
        try check([], "fetchAll()")
        return try await base.fetchAll()
    }
    func save(_ entity: Item) async throws {
        try check([entity.id], "save(_:)")
        try await base.save(entity)
    }
    func save(contentsOf entities: [Item]) async throws {
        try check(entities.map(\.id), "save(contentsOf:)")
        try await base.save(contentsOf: entities)
    }
    func delete(id: Int) async throws {
        try check([id], "delete(id:)")
        try await base.delete(id: id)
    }
    func delete(ids: [Int]) async throws {
        try check(ids, "delete(ids:)")
        try await base.delete(ids: ids)
    }
    func deleteAll() async throws {
        try check([], "deleteAll()")
        try await base.deleteAll()
    }
}

@Suite struct OfflineFirstRefusedBeforeSendingTests {
    @Test func aChangeRefusedBeforeTheWireIsRejectedAndTheOthersInItsBatchAreSent() async throws {
        let remote = PickyRemote()
        try await remote.base.save(contentsOf: [item(5), item(6)])
        let directory = try TemporaryDirectory()
        let local = try await FileRepository<Item>(fileURL: directory.file("items.store"))
        let outbox = try await Outbox<Item>(fileURL: directory.file("items.outbox"))
        let items = remote.offlineFirst(
            local: local, outbox: outbox, conflicts: .lastWriterWins, automaticSync: nil)
        try await items.sync()
        try await items.save(contentsOf: [item(1), item(100), item(2)])
        try await items.delete(ids: [5, 101, 6])

        try await items.sync()

        #expect(try await remote.base.fetchAll() == [item(1), item(2)], "the others are sent")
        for id in [100, 101] {
            guard case .rejected(let error) = try await items.status(of: id) else {
                Issue.record("the change of \(id) is rejected: \(try await items.status(of: id))")
                continue
            }
            #expect(error.code == .rejected)
            #expect(error.reason.contains("\(id)"), "the reason names the ID: \(error.reason)")
        }
        for id in [1, 2, 5, 6] {
            guard case .synced = try await items.status(of: id) else {
                Issue.record("\(id) is synced: \(try await items.status(of: id))")
                continue
            }
        }
        let reached = remote.reached.count
        try await items.sync()
        #expect(
            remote.reached.count == reached + 1 && remote.reached.last == "fetchAll()",
            "the next sync only pulls: \(remote.reached.suffix(3))")
        try await local.close()
        try await outbox.close()
    }

    @Test func aChangeRefusedForAnotherReasonWhileReadingStillFailsTheSyncAndStaysPending() async throws {
        let remote = Remote()
        let directory = try TemporaryDirectory()
        let local = try await FileRepository<Item>(fileURL: directory.file("items.store"))
        let outbox = try await Outbox<Item>(fileURL: directory.file("items.outbox"))
        let items = remote.offlineFirst(
            local: local, outbox: outbox, conflicts: .lastWriterWins, automaticSync: nil)
        try await items.save(item(1))
        remote.online = false

        await #expect(throws: RepositoryError.self) { try await items.sync() }
        guard case .pending(1, _) = try await items.status(of: 1) else {
            Issue.record("a change whose read failed stays pending: \(try await items.status(of: 1))")
            return
        }
        try await local.close()
        try await outbox.close()
    }
}
