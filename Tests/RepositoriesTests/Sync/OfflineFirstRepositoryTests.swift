import Foundation
import Repositories
import RepositoriesTestSupport
import RepositoriesTesting
import Synchronization
import Testing

/// A remote a test can take offline, make refuse some IDs, and ask which idempotency keys
/// each write carried.
final class Remote: Repository, SystemOfRecord, Sendable {
    typealias Entity = Item
    typealias ID = Int

    private struct State {
        var online = true
        var refused: Set<Int> = []
        var writes: [(key: String?, ids: [Int])] = []
    }

    let base = InMemoryRepository<Item>()
    private let state = Mutex(State())

    var online: Bool {
        get { state.withLock { $0.online } }
        set { state.withLock { $0.online = newValue } }
    }

    /// Refuses every write that touches `id` with `rejected`, as a 4xx would.
    func refuse(_ id: Int) { state.withLock { _ = $0.refused.insert(id) } }
    func accept(_ id: Int) { state.withLock { _ = $0.refused.remove(id) } }
    /// Every write that reached the remote: the key it carried and the IDs it touched.
    var writes: [(key: String?, ids: [Int])] { state.withLock { $0.writes } }

    private func reach() throws {
        guard online else { throw RepositoryError.unavailable("The test remote is offline") }
    }

    private func write(_ ids: [Int], _ body: () async throws -> Void) async throws {
        try reach()
        let refused = state.withLock { !$0.refused.isDisjoint(with: ids) }
        if refused { throw RepositoryError.rejected("The test remote refuses \(ids)") }
        try await body()
        state.withLock { $0.writes.append((IdempotencyKey.current, ids)) }
    }

    func fetch(id: Int) async throws -> Item? {
        try reach()
        return try await base.fetch(id: id)
    }
    func fetchAll() async throws -> [Item] {
        try reach()
        return try await base.fetchAll()
    }
    func fetch(ids: [Int]) async throws -> [Item] {
        try reach()
        return try await base.fetch(ids: ids)
    }
    func save(_ entity: Item) async throws { try await write([entity.id]) { try await base.save(entity) } }
    func save(contentsOf entities: [Item]) async throws {
        try await write(entities.map(\.id)) { try await base.save(contentsOf: entities) }
    }
    func delete(id: Int) async throws { try await write([id]) { try await base.delete(id: id) } }
    func delete(ids: [Int]) async throws { try await write(ids) { try await base.delete(ids: ids) } }
    func deleteAll() async throws { try await write([]) { try await base.deleteAll() } }
}

/// One device: a local store and an outbox in a directory of its own, beside `remote`.
struct Device<DeviceRemote: Repository<Item, Int>> {
    let directory: TemporaryDirectory
    let local: FileRepository<Item>
    let outbox: Outbox<Item>
    let notes: OfflineFirstRepository<DeviceRemote, FileRepository<Item>>

    init(
        _ remote: DeviceRemote, conflicts: ConflictPolicy<Item> = .lastWriterWins,
        in directory: TemporaryDirectory? = nil
    ) async throws {
        self.directory = try directory ?? TemporaryDirectory()
        local = try await FileRepository<Item>(fileURL: self.directory.url.appending(path: "items.store"))
        outbox = try await Outbox<Item>(fileURL: self.directory.url.appending(path: "items.outbox"))
        notes = remote.offlineFirst(local: local, outbox: outbox, conflicts: conflicts, automaticSync: nil)
    }

    func close() async throws {
        try await local.close()
        try await outbox.close()
    }
}

@Suite struct OfflineFirstRepositoryTests {
    /// Over a real local store: a `FileRepository` checks cancellation where memory never
    /// does, so a write the caller cancels is seen landing on one side only.
    @Test func conformsAsSeenByTheDevice() async throws {
        let directory = try TemporaryDirectory()
        try await RepositoryConformance(makeRepository: {
            let remote = Remote()
            let outbox = try await Outbox<Item>(fileURL: directory.file())
            let local = try await FileRepository<Item>(fileURL: directory.file())
            return remote.offlineFirst(local: local, outbox: outbox, conflicts: .lastWriterWins)
        }).run()
    }

    @Test func anOfflineSaveReturnsIsReadAtOnceAndReachesTheRemoteOnceOnSync() async throws {
        let remote = Remote()
        let device = try await Device(remote)
        remote.online = false

        try await device.notes.save(item(1))
        #expect(try await device.notes.fetch(id: 1) == item(1), "the device has it at once")
        guard case .pending(0, nil) = try await device.notes.status(of: 1) else {
            Issue.record("a new change is pending, untried")
            return
        }

        await #expect(throws: RepositoryError.self) { try await device.notes.sync() }
        guard case .pending(1, let error?) = try await device.notes.status(of: 1) else {
            Issue.record("a failed try is counted and its error kept")
            return
        }
        #expect(error.code == .unavailable)
        #expect(device.notes.lastSyncError?.code == .unavailable)

        remote.online = true
        try await device.notes.sync()
        #expect(try await remote.base.fetchAll() == [item(1)])
        #expect(remote.writes.count == 1, "sent once")
        guard case .synced = try await device.notes.status(of: 1) else {
            Issue.record("an acknowledged change is synced")
            return
        }
        #expect(try await device.outbox.changes().isEmpty)
        #expect(device.notes.lastSyncError == nil)
    }

    @Test func aLaterChangeSupersedesAQueuedOneAndADeleteSupersedesASave() async throws {
        let remote = Remote()
        let device = try await Device(remote)
        remote.online = false
        try await device.notes.save(item(1))
        try await device.notes.save(item(2))
        try await device.notes.save(item(1, 2))
        try await device.notes.delete(id: 2)

        let changes = try await device.outbox.changes()
        #expect(changes.map(\.id) == [1, 2], "one change per ID, in the order the IDs were first changed")
        remote.online = true
        try await device.notes.sync()
        #expect(try await remote.base.fetchAll() == [item(1, 2)])
        #expect(try await device.notes.fetchAll() == [item(1, 2)])
    }

    @Test func aRetriedChangeCarriesTheSameIdempotencyKey() async throws {
        let remote = Remote()
        let device = try await Device(remote)
        try await device.notes.save(item(1))
        let key = try #require(try await device.outbox.change(for: 1)?.idempotencyKey)
        remote.refuse(1)
        try await device.notes.sync()
        remote.accept(1)
        try await device.notes.retry(id: 1)
        try await device.notes.sync()
        #expect(remote.writes.map(\.key) == [key], "the one write that landed carried the change's key")
    }

    @Test func aPullNeverOverwritesOrDeletesAnEntityWithAPendingChange() async throws {
        let remote = Remote()
        try await remote.base.save(contentsOf: [item(1), item(2)])
        let device = try await Device(remote)
        try await device.notes.sync()
        #expect(try await device.notes.fetchAll() == [item(1), item(2)])

        try await device.notes.save(item(1, 5))
        try await device.notes.delete(id: 2)
        remote.refuse(1)
        remote.refuse(2)
        try await remote.base.save(item(1, 9))
        try await remote.base.save(item(3))
        try await device.notes.sync()

        #expect(try await device.notes.fetch(id: 1) == item(1, 5), "the pending save is kept")
        #expect(try await device.notes.fetch(id: 2) == nil, "the pending delete is kept")
        #expect(try await device.notes.fetch(id: 3) == item(3), "the rest is pulled")
    }

    @Test func aRefusedChangeIsRejectedNotRetriedAndDiscardRestoresTheRemotesVersion() async throws {
        let remote = Remote()
        try await remote.base.save(item(1))
        let device = try await Device(remote)
        try await device.notes.sync()
        try await device.notes.save(item(1, 1))
        try await device.notes.save(item(2))
        remote.refuse(1)

        try await device.notes.sync()
        guard case .rejected(let error) = try await device.notes.status(of: 1) else {
            Issue.record("a refused change is rejected")
            return
        }
        #expect(error.code == .rejected)
        #expect(try await remote.base.fetch(id: 2) == item(2), "the other changes go on")
        let writes = remote.writes.count
        try await device.notes.sync()
        #expect(remote.writes.count == writes, "a rejected change is not sent again by itself")
        #expect(try await device.notes.fetch(id: 1) == item(1, 1), "and it stays visible here")

        try await device.notes.discard(id: 1)
        #expect(try await device.notes.fetch(id: 1) == item(1), "discard restores the remote's version")
        guard case .synced = try await device.notes.status(of: 1) else {
            Issue.record("a discarded change is gone")
            return
        }
    }

    @Test(arguments: ["lastWriterWins", "serverWins", "merge"])
    func twoDevicesEditingOneEntityEndAsThePolicySays(_ policy: String) async throws {
        let remote = Remote()
        try await remote.base.save(item(1))
        let conflicts: ConflictPolicy<Item> =
            switch policy {
            case "lastWriterWins": .lastWriterWins
            case "serverWins": .serverWins
            default: .merge { _, local, remote in item(1, local.revision + remote.revision) }
            }
        let phone = try await Device(remote, conflicts: conflicts)
        let tablet = try await Device(remote, conflicts: conflicts)
        try await phone.notes.sync()
        try await tablet.notes.sync()

        try await phone.notes.save(item(1, 10))
        try await tablet.notes.save(item(1, 20))
        try await phone.notes.sync()
        try await tablet.notes.sync()
        try await phone.notes.sync()

        let expected =
            switch policy {
            case "lastWriterWins": item(1, 20)
            case "serverWins": item(1, 10)
            default: item(1, 30)
            }
        #expect(try await remote.base.fetch(id: 1) == expected)
        #expect(try await phone.notes.fetch(id: 1) == expected)
        #expect(try await tablet.notes.fetch(id: 1) == expected)
        #expect(try await phone.outbox.changes().isEmpty)
        #expect(try await tablet.outbox.changes().isEmpty)
    }

    @Test func changesWrittenOfflineSurviveARestartAndSync() async throws {
        let remote = Remote()
        remote.online = false
        let directory = try TemporaryDirectory()
        var device = try await Device(remote, in: directory)
        try await device.notes.save(contentsOf: [item(1), item(2)])
        try await device.notes.delete(id: 2)
        try await device.close()

        device = try await Device(remote, in: directory)
        #expect(try await device.notes.fetchAll() == [item(1)])
        #expect(try await device.outbox.changes().map(\.id) == [1, 2])
        remote.online = true
        try await device.notes.sync()
        #expect(try await remote.base.fetchAll() == [item(1)])
        #expect(try await device.outbox.changes().isEmpty)
    }

    @Test func aLocalStoreThatRefusesTheWriteLeavesTheOutboxAsItWas() async throws {
        let remote = Remote()
        let directory = try TemporaryDirectory()
        let local = FaultInjectingRepository(InMemoryRepository<Item>())
        let outbox = try await Outbox<Item>(fileURL: directory.file("items.outbox"))
        let notes = remote.offlineFirst(
            local: local, outbox: outbox, conflicts: .lastWriterWins, automaticSync: nil)
        try await notes.save(item(1))
        local.failNext(of: .save, with: RepositoryError.unavailable("The disk is full (test)"))
        await #expect(throws: RepositoryError.self) { try await notes.save(item(1, 1)) }
        #expect(
            try await outbox.change(for: 1)?.kind.entity == item(1), "the queued change is the one before")
        #expect(try await notes.fetch(id: 1) == item(1))
    }

    @Test func anOutboxThatRefusesTheWriteLeavesTheLocalStoreAsItWas() async throws {
        let remote = Remote()
        let device = try await Device(remote)
        try await device.notes.save(item(1))
        try await device.outbox.close()
        let error = await #expect(throws: RepositoryError.self) { try await device.notes.save(item(1, 1)) }
        #expect(error?.code == .closed)
        await #expect(throws: RepositoryError.self) { try await device.notes.save(item(2)) }
        #expect(try await device.local.fetchAll() == [item(1)], "the local change was taken back")
    }

    /// An offline-first stack over `remote` (offline) that syncs by itself on `clock`, with
    /// jitter-free waits from 1 s doubling up to `maxDelay`.
    private func syncingByItself(
        over remote: Remote, clock: ManualClock, maxAttempts: Int = 3, maxDelay: Duration = .seconds(4),
        in directory: TemporaryDirectory
    ) async throws -> OfflineFirstRepository<Remote, InMemoryRepository<Item>> {
        remote.online = false
        let outbox = try await Outbox<Item>(fileURL: directory.file())
        return remote.offlineFirst(
            local: InMemoryRepository<Item>(), outbox: outbox, conflicts: .lastWriterWins,
            automaticSync: AutomaticSync(
                backoff: RetryPolicy(
                    maxAttempts: maxAttempts, baseDelay: .seconds(1), maxDelay: maxDelay, jitter: .none),
                clock: clock))
    }

    @Test func anAutomaticSyncThatFailedIsTriedAgainAfterABackoffAndSendsTheChange() async throws {
        let remote = Remote()
        let clock = ManualClock()
        let directory = try TemporaryDirectory()  // held: its files are deleted with it
        let notes = try await syncingByItself(over: remote, clock: clock, maxAttempts: 5, in: directory)
        defer { notes.stopAutomaticSync() }

        try await notes.save(item(1))
        await clock.waitForSleepers(count: 1)
        #expect(try await remote.base.fetchAll().isEmpty, "the first automatic sync failed offline")
        remote.online = true
        await clock.advance(by: .seconds(1))
        #expect(await eventually({ remote.writes.count == 1 }), "the retry after the backoff sent it")
        #expect(try await remote.base.fetchAll() == [item(1)])
    }

    @Test func anAutomaticSyncKeepsTryingPastTheBackoffsAttemptsUntilTheRemoteAnswers() async throws {
        let remote = Remote()
        let clock = ManualClock()
        let directory = try TemporaryDirectory()  // held: its files are deleted with it
        let notes = try await syncingByItself(over: remote, clock: clock, maxAttempts: 2, in: directory)
        defer { notes.stopAutomaticSync() }

        try await notes.save(item(1))
        // Offline for six tries, three times the policy's attempts: the waits grow to 4 s.
        for wait in [1, 2, 4, 4, 4] {
            await clock.waitForSleepers(count: 1)
            await clock.advance(by: .seconds(wait))
        }
        await clock.waitForSleepers(count: 1)
        #expect(try await remote.base.fetchAll().isEmpty)
        remote.online = true
        await clock.advance(by: .seconds(4))
        #expect(await eventually({ remote.writes.count == 1 }), "the try after the network returned sent it")
        #expect(try await remote.base.fetchAll() == [item(1)])
    }

    @Test func stoppingAutomaticSyncDuringABackoffWaitSendsNothingMore() async throws {
        let remote = Remote()
        let clock = ManualClock()
        let directory = try TemporaryDirectory()
        let notes = try await syncingByItself(
            over: remote, clock: clock, maxDelay: .seconds(1), in: directory)

        try await notes.save(item(1))
        await clock.waitForSleepers(count: 1)
        notes.stopAutomaticSync()
        #expect(clock.sleeperCount == 0, "the backoff wait ended with the stop")
        remote.online = true
        await clock.advance(by: .seconds(1))
        #expect(try await notes.outbox.changes().map(\.id) == [1], "stopped: the change still waits")
        try await notes.sync()
        #expect(remote.writes.count == 1, "the explicit sync sent it")
    }

    @Test func aSnapshotStreamStartsWithOneSnapshotAndSendsTheNextAfterAWrite() async throws {
        let remote = Remote()
        let device = try await Device(remote)
        var snapshots = device.notes.values(Query()).makeAsyncIterator()
        let first = try #require(try await snapshots.next())
        #expect(first.entities.isEmpty)
        try await device.notes.save(item(1))
        // Had the stream repeated its first snapshot, this one would still be empty.
        let next = try #require(try await snapshots.next())
        #expect(next.entities == [item(1)] && next.pendingIDs == [1])
    }

    @Test func anIntervalBringsInWhatAnotherDeviceWrote() async throws {
        let remote = Remote()
        let clock = ManualClock()
        let directory = try TemporaryDirectory()
        let outbox = try await Outbox<Item>(fileURL: directory.file())
        let notes = remote.offlineFirst(
            local: InMemoryRepository<Item>(), outbox: outbox, conflicts: .lastWriterWins,
            automaticSync: AutomaticSync(every: .seconds(60), clock: clock))
        defer { notes.stopAutomaticSync() }
        #expect(try await notes.fetchAll().isEmpty)

        try await remote.base.save(item(7))
        await clock.waitForSleepers(count: 1)
        await clock.advance(by: .seconds(60))
        let local = notes.local
        #expect(
            await eventuallyAsync { (try? await local.fetch(id: 7)) == item(7) }, "pulled on the interval")
    }

    @Test func aViewModelWatchesSnapshotsWithoutSpellingTheStack() async throws {
        let remote = Remote()
        remote.online = false
        let directory = try TemporaryDirectory()
        var device = try await Device(remote, in: directory)
        let notes: any SyncingRepository<Item, Int> = device.notes
        var snapshots = notes.values(Query<Item>()).makeAsyncIterator()

        let first = try #require(try await snapshots.next())
        #expect(first.entities.isEmpty && first.pendingIDs.isEmpty && first.lastSyncedAt == nil)

        try await notes.save(item(1))
        var snapshot = try #require(try await snapshots.next())
        while snapshot.pendingIDs != [1] { snapshot = try #require(try await snapshots.next()) }
        #expect(snapshot.entities == [item(1)])

        await #expect(throws: RepositoryError.self) { try await notes.sync() }
        while snapshot.lastSyncError == nil { snapshot = try #require(try await snapshots.next()) }
        #expect(snapshot.lastSyncError?.code == .unavailable)

        remote.online = true
        try await notes.sync()
        while !snapshot.pendingIDs.isEmpty || snapshot.lastSyncError != nil {
            snapshot = try #require(try await snapshots.next())
        }
        let syncedAt = try #require(snapshot.lastSyncedAt)

        try await device.close()
        device = try await Device(remote, in: directory)
        var reopened = device.notes.values(Query<Item>()).makeAsyncIterator()
        #expect(try await reopened.next()?.lastSyncedAt == syncedAt, "the age survives a restart")
    }

    @Test func pendingChangesStreamsTheQueueForABadge() async throws {
        let remote = Remote()
        let device = try await Device(remote)
        var counts = device.notes.pendingChanges().map(\.count).makeAsyncIterator()
        #expect(await counts.next() == 0)
        try await device.notes.save(item(1))
        #expect(await counts.next() == 1)
        try await device.notes.sync()
        #expect(await counts.next() == 0)
    }
}

/// Yields until `condition` holds or five minutes pass; returns whether it held (see
/// `eventually(_:)`: the bound is time, not a count of yields).
func eventuallyAsync(_ condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(300)
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        await Task.yield()
    }
    return await condition()
}

extension PendingChange.Kind {
    var entity: Entity? {
        if case .save(let entity) = self { return entity }
        return nil
    }
}
