import Foundation
import Repositories
import RepositoriesTestSupport
import RepositoriesTesting
import Synchronization
import Testing

/// A change the remote applied without the device hearing it (the answer lost) is the
/// device's own write, never someone else's: a later change of the same ID is sent over it,
/// not settled as a conflict against it. And a merged result is a new change, sent under a
/// key of its own.
@Suite struct OfflineFirstLandedChangeTests {
    /// A device and its remote after: v0 synced, v1 of entity 1 saved and sent, the remote
    /// applied v1, and its answer was lost.
    static func v1LandedUnheard(conflicts: ConflictPolicy<Item>) async throws
        -> (AnswerLosingRemote, Device<AnswerLosingRemote>)
    {
        let remote = AnswerLosingRemote()
        let device = try await Device(remote, conflicts: conflicts)
        try await device.notes.save(item(1, 0))
        try await device.notes.sync()
        try await device.notes.save(item(1, 1))
        remote.losesAnswers = true
        await #expect(throws: RepositoryError.self) { try await device.notes.sync() }
        remote.losesAnswers = false
        return (remote, device)
    }

    /// `.serverWins`: v1 lands but its answer is lost, v2 is saved, the next sync must send
    /// v2. Before, the remote's v1 differed from v2's base (the value before v1), so the
    /// engine took it for another device's write and dropped v2: both sides ended at v1,
    /// nothing pending, status synced.
    @Test func aLaterSaveIsSentOverTheDevicesOwnLandedChange() async throws {
        let (remote, device) = try await Self.v1LandedUnheard(conflicts: .serverWins)
        #expect(try await remote.inner.base.fetch(id: 1) == item(1, 1), "the remote applied v1")

        try await device.notes.save(item(1, 2))
        try await device.notes.sync()
        #expect(try await remote.inner.base.fetch(id: 1) == item(1, 2), "v2 reached the remote")
        #expect(try await device.notes.fetch(id: 1) == item(1, 2))
        #expect(try await device.outbox.changes().isEmpty)
        try await device.close()
    }

    /// `.merge`: the same with a delete in place of v2; the delete must reach the remote,
    /// not be undone by the merge's "a local delete yields to a remote change".
    @Test func aLaterDeleteIsSentOverTheDevicesOwnLandedChange() async throws {
        let (remote, device) = try await Self.v1LandedUnheard(conflicts: .merge { _, mine, _ in mine })

        try await device.notes.delete(id: 1)
        try await device.notes.sync()
        #expect(try await remote.inner.base.fetch(id: 1) == nil, "the delete reached the remote")
        #expect(try await device.notes.fetch(id: 1) == nil)
        #expect(try await device.outbox.changes().isEmpty)
        try await device.close()
    }

    /// Another device's write still is a conflict: the remote at a version this device never
    /// sent is settled by the policy.
    @Test func anotherDevicesWriteIsStillAConflict() async throws {
        let (remote, device) = try await Self.v1LandedUnheard(conflicts: .serverWins)
        try await remote.inner.base.save(item(1, 7))  // another device, after v1 landed

        try await device.notes.save(item(1, 2))
        try await device.notes.sync()
        #expect(try await remote.inner.base.fetch(id: 1) == item(1, 7), "server wins")
        #expect(try await device.notes.fetch(id: 1) == item(1, 7))
        try await device.close()
    }

    /// The same when v2 replaces v1 after the sync read the outbox but before v1's request
    /// left (while the sync read the remote's copies): v1 still goes out, lands, and its
    /// answer is lost; the next sync must still send v2 over it.
    @Test func aSaveMadeWhileItsPredecessorIsOnItsWayIsSentOverIt() async throws {
        let remote = AnswerLosingRemote()
        let device = try await Device(remote, conflicts: .serverWins)
        try await device.notes.save(item(1, 0))
        try await device.notes.sync()
        try await device.notes.save(item(1, 1))

        let reading = Gate()
        remote.holdNextRead(at: reading)
        remote.losesAnswers = true
        let notes = device.notes
        let sync = Task { try await notes.sync() }
        await reading.waitForArrival()
        try await device.notes.save(item(1, 2))  // replaces v1 while the sync reads
        reading.open()
        await #expect(throws: RepositoryError.self) { try await sync.value }
        remote.losesAnswers = false
        #expect(try await remote.inner.base.fetch(id: 1) == item(1, 1), "v1 went out and landed")

        try await device.notes.sync()
        #expect(try await remote.inner.base.fetch(id: 1) == item(1, 2), "v2 reached the remote")
        #expect(try await device.notes.fetch(id: 1) == item(1, 2))
        try await device.close()
    }

    /// A merged result is a new change: it goes out under a key of its own, never the key of
    /// the change it replaced, which a server may already have seen (and would answer with
    /// the old reply, dropping the merge).
    @Test func aMergedResultIsSentUnderANewKey() async throws {
        let remote = AnswerLosingRemote()
        let merge = ConflictPolicy<Item>.merge { _, mine, theirs in
            item(mine.id, mine.revision + theirs.revision)
        }
        let device = try await Device(remote, conflicts: merge)
        try await device.notes.save(item(1, 0))
        try await device.notes.sync()

        try await device.notes.save(item(1, 1))
        let key = try #require(try await device.outbox.change(for: 1)?.idempotencyKey)
        try await remote.inner.base.save(item(1, 5))  // another device
        try await device.notes.sync()
        #expect(try await remote.inner.base.fetch(id: 1) == item(1, 6), "the merge reached the remote")
        let keys = remote.inner.writes.filter { $0.ids == [1] }.map(\.key)
        #expect(keys.last != key, "the merge went out under the replaced change's key \(key)")
        try await device.close()
    }
}

/// The test `Remote`, whose writes can be made to lose their answers: applied, then
/// `unavailable` thrown, as when a connection drops after the server committed.
final class AnswerLosingRemote: Repository, SystemOfRecord, Sendable {
    typealias Entity = Item
    typealias ID = Int

    let inner = Remote()
    private let losing = Mutex(false)
    private let heldRead = Mutex<Gate?>(nil)

    /// Holds the next read of several IDs (the sync's read of the remote's copies) at `gate`.
    func holdNextRead(at gate: Gate) { heldRead.withLock { $0 = gate } }

    /// Whether each write, once applied, throws as if its answer were lost.
    var losesAnswers: Bool {
        get { losing.withLock { $0 } }
        set { losing.withLock { $0 = newValue } }
    }

    private func write(_ body: () async throws -> Void) async throws {
        try await body()
        if losesAnswers {
            throw RepositoryError.unavailable("The answer was lost after the write was applied")
        }
    }

    func fetch(id: Int) async throws -> Item? { try await inner.fetch(id: id) }
    func fetchAll() async throws -> [Item] { try await inner.fetchAll() }
    func fetch(ids: [Int]) async throws -> [Item] {
        if let gate = heldRead.withLock({ gate in
            defer { gate = nil }
            return gate
        }) {
            await gate.pass()
        }
        return try await inner.fetch(ids: ids)
    }
    func save(_ entity: Item) async throws { try await write { try await inner.save(entity) } }
    func save(contentsOf entities: [Item]) async throws {
        try await write { try await inner.save(contentsOf: entities) }
    }
    func delete(id: Int) async throws { try await write { try await inner.delete(id: id) } }
    func delete(ids: [Int]) async throws { try await write { try await inner.delete(ids: ids) } }
    func deleteAll() async throws { try await write { try await inner.deleteAll() } }
}
