import Foundation
import RepositoriesTestSupport
import RepositoriesTesting
import Synchronization
import Testing

@testable import Repositories

/// The snapshot streams of an offline-first repository keep their answer from each change
/// instead of running the query again, and still never show a write half done.
@Suite struct OfflineSnapshotStreamTests {
    /// A device over `remote` whose local store counts its calls.
    struct Watched {
        let directory: TemporaryDirectory
        let local: SpyRepository<FileRepository<Item>>
        let outbox: Outbox<Item>
        let notes: OfflineFirstRepository<InMemoryRepository<Item>, SpyRepository<FileRepository<Item>>>

        init(_ remote: InMemoryRepository<Item>) async throws {
            directory = try TemporaryDirectory()
            local = SpyRepository(
                try await FileRepository<Item>(fileURL: directory.url.appending(path: "items.store")))
            outbox = try await Outbox<Item>(fileURL: directory.url.appending(path: "items.outbox"))
            notes = remote.offlineFirst(
                local: local, outbox: outbox, conflicts: .lastWriterWins, automaticSync: nil)
        }

        /// How many times the local store ran a query with `limit`, or its first matches.
        func queriesRun(limit: Int) -> Int {
            local.calls.filter { $0.operation == .fetchQuery && $0.query?.limit == limit }.count
        }

        func close() async throws {
            try await local.base.close()
            try await outbox.close()
        }
    }

    /// The newest snapshot of `stream` that `isDone` accepts, checking `law` on every one.
    private static func follow(
        _ stream: AsyncThrowingStream<OfflineSnapshot<Item>, any Error>,
        law: @escaping @Sendable (OfflineSnapshot<Item>) -> Void = { _ in },
        until isDone: @escaping @Sendable (OfflineSnapshot<Item>) -> Bool
    ) -> Task<OfflineSnapshot<Item>?, any Error> {
        Task {
            for try await snapshot in stream {
                law(snapshot)
                if isDone(snapshot) { return snapshot }
            }
            return nil
        }
    }

    @Test func writesAndPulledPagesCostTheStreamNoNewQuery() async throws {
        let remote = InMemoryRepository<Item>()
        let device = try await Watched(remote)
        let query = Query<Item>().sorted(by: \.rank).sorted(by: \.id, .descending).limit(12)
        let follower = Self.follow(device.notes.values(query)) { $0.pendingIDs.count == 60 }
        for index in 0..<60 { try await device.notes.save(item(index)) }
        let written = try #require(try await follower.value)
        #expect(written.entities == (try await device.notes.snapshot(query)).entities)
        #expect(
            device.queriesRun(limit: 12) == 2, "one query to start the stream, one for snapshot(_:); no more")

        // The first sync reads the remote whole; the next ones take the feed's pages.
        try await device.notes.sync()
        let page = query.limit(11)
        // Rank 0 holds every fifth ID: the four new ones come first, before 55, 50, ...
        let pulled = Self.follow(device.notes.values(page)) {
            $0.entities.prefix(4).map(\.id) == [1_015, 1_010, 1_005, 1_000]
        }
        try await remote.save(contentsOf: (1_000..<1_020).map { item($0) })
        let report = try await device.notes.sync()
        #expect(report.pullWasIncremental)
        let snapshot = try #require(try await pulled.value)
        #expect(snapshot.entities == (try await device.notes.local.fetch(page)))
        #expect(
            device.queriesRun(limit: 11) == 2,
            "one query to start the stream, one above to compare with; the pulled page cost none")
        try await device.close()
    }

    @Test func manyTasksWritingAtOnceAreNeverShownHalfDone() async throws {
        let device = try await Watched(InMemoryRepository<Item>())
        let writers = 8
        let writesEach = 30
        let everyID = Query<Item>().sorted(by: \.rank)
        let aPage = Query<Item>().filter { $0.revision > 0 }.sorted(by: \.updatedAt, .descending).offset(2)
            .limit(5)
        let halfDone = Shared(0)
        let whole = Self.follow(
            device.notes.values(everyID),
            law: { snapshot in
                if Set(snapshot.entities.map(\.id)) != snapshot.pendingIDs { halfDone.update { $0 += 1 } }
            },
            until: { $0.pendingIDs.count == writers * writesEach })
        let paged = Self.follow(
            device.notes.values(aPage),
            law: { snapshot in
                if !snapshot.entities.allSatisfy({ snapshot.pendingIDs.contains($0.id) }) {
                    halfDone.update { $0 += 1 }
                }
            },
            until: { $0.pendingIDs.count == writers * writesEach })
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<writers {
                group.addTask {
                    for step in 0..<writesEach {
                        let id = writer * 1_000 + step
                        try await device.notes.save(item(id))
                        // An update of an earlier one moves it: its rank and date change.
                        if step % 3 == 2 { try await device.notes.save(item(id - 2, step)) }
                    }
                }
            }
            try await group.waitForAll()
        }
        let lastWhole = try #require(try await whole.value)
        let lastPage = try #require(try await paged.value)
        #expect(halfDone.value == 0, "a snapshot showed an entity without its pending change, or the reverse")
        #expect(lastWhole.entities == (try await device.notes.local.fetch(everyID)))
        #expect(lastPage.entities == (try await device.notes.local.fetch(aPage)))
        try await device.close()
    }

    /// A write held between its two sides (the outbox has its change, the local store not
    /// yet) while another write ends and wakes the stream: no snapshot may show the held
    /// write's change pending without its entity.
    @Test func aWriteHeldHalfWayIsNotShownUntilItEnds() async throws {
        let directory = try TemporaryDirectory()
        let gates = Gates(count: 1)
        let file = try await FileRepository<Item>(fileURL: directory.url.appending(path: "items.store"))
        let outbox = try await Outbox<Item>(fileURL: directory.url.appending(path: "items.outbox"))
        let notes = Remote().offlineFirst(
            local: GatedSaves(base: file, gates: gates), outbox: outbox, conflicts: .lastWriterWins,
            automaticSync: nil)
        let seen = Shared<[OfflineSnapshot<Item>]>([])
        let following = Task {
            for try await snapshot in notes.values(Query<Item>()) {
                seen.update { $0.append(snapshot) }
                if snapshot.pendingIDs == [1, 2] { return }
            }
        }
        #expect(await eventuallyAsync { seen.value.count == 1 }, "the first snapshot")

        let held = Task { try await notes.save(item(1)) }
        await gates[0].waitForArrival()
        #expect(
            await eventuallyAsync { (try? await outbox.changes().map(\.id)) == [1] }, "recorded, not applied")
        // A batch save goes past the gate, ends, and wakes the stream while 1 is half done.
        try await notes.save(contentsOf: [item(2)])
        try await Task.sleep(for: .milliseconds(100))
        #expect(seen.value.count == 1, "no snapshot while a write is half done")

        gates[0].open()
        try await held.value
        try await following.value
        for snapshot in seen.value {
            #expect(Set(snapshot.entities.map(\.id)) == snapshot.pendingIDs)
        }
        try await file.close()
        try await outbox.close()
    }

    /// A stream that ends, here because a read failed (its outbox was closed), stops taking
    /// the writes' updates: nothing queues for a stream no one follows.
    @Test func aStreamThatEndsLeavesNoQueueBehind() async throws {
        let device = try await Watched(InMemoryRepository<Item>())
        var snapshots = device.notes.values(Query<Item>()).makeAsyncIterator()
        _ = try await snapshots.next()
        #expect(device.notes.engine.updates.subscriberCount == 1)
        try await device.outbox.close()
        await #expect(throws: RepositoryError.self) { try await device.notes.save(item(1)) }
        await #expect(throws: RepositoryError.self) { _ = try await snapshots.next() }
        #expect(await eventuallyAsync { device.notes.engine.updates.subscriberCount == 0 })
        try await device.local.base.close()
    }
}
