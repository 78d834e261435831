import Foundation
import Repositories
import RepositoriesTestSupport
import Synchronization
import Testing

@testable import RepositoriesSQLite

/// An outbox kept in the local store's SQLite database (`Outbox(in:)`): a write's change and
/// its local row are one transaction.
@Suite struct SQLiteOutboxTests {
    /// The local store, its outbox and an offline-first stack over an in-memory remote.
    struct Device {
        let local: SQLiteRepository<FixtureEntity>
        let outbox: Outbox<FixtureEntity>
        let notes: OfflineFirstRepository<InMemoryRepository<FixtureEntity>, SQLiteRepository<FixtureEntity>>

        init(_ url: URL, remote: InMemoryRepository<FixtureEntity>) async throws {
            local = try await SQLiteRepository<FixtureEntity>(fileURL: url)
            outbox = try await Outbox(in: local)
            notes = remote.offlineFirst(
                local: local, outbox: outbox, conflicts: .lastWriterWins, automaticSync: nil)
        }

        func close() async throws {
            try await outbox.close()
            try await local.close()
        }
    }

    @Test func eachWriteIsOneCommitAndAFailedCommitLeavesNeitherSide() async throws {
        let directory = try TemporaryDirectory()
        let device = try await Device(directory.file("device.sqlite"), remote: InMemoryRepository())
        let commits = Mutex(0)
        let refuse = Mutex(false)
        await device.local.database.setCommitHook {
            commits.withLock { $0 += 1 }
            return !refuse.withLock { $0 }
        }
        try await device.notes.save(FixtureEntity.make(1))
        try await device.notes.save(contentsOf: [2, 3].map(FixtureEntity.make))
        try await device.notes.delete(id: 2)
        #expect(commits.withLock { $0 } == 3, "one commit (one fsync) for the change and its row")

        refuse.withLock { $0 = true }
        await #expect(throws: RepositoryError.self) { try await device.notes.save(FixtureEntity.make(4)) }
        await #expect(throws: RepositoryError.self) { try await device.notes.delete(id: 1) }
        refuse.withLock { $0 = false }
        #expect(try await device.outbox.changes().map(\.id) == [1, 2, 3])
        #expect(try await device.local.fetchAll().map(\.id) == [1, 3])
        try await device.close()
    }

    @Test func aWriteTheLocalTableRefusesLeavesNoChangeQueued() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("device.sqlite")
        let device = try await Device(url, remote: InMemoryRepository())
        let raw = try RawDatabase(url)
        try raw.execute(
            """
            CREATE TRIGGER refuse_13 BEFORE INSERT ON "FixtureEntity" WHEN NEW.id = 13
            BEGIN SELECT RAISE(ABORT, 'refused'); END
            """)
        await #expect(throws: RepositoryError.self) { try await device.notes.save(FixtureEntity.make(13)) }
        await #expect(throws: RepositoryError.self) {
            try await device.notes.save(contentsOf: [12, 13, 14].map(FixtureEntity.make))
        }
        #expect(
            try await device.outbox.changes().isEmpty, "no change queued for a write the local store refused")
        #expect(try await device.local.fetchAll().isEmpty)

        try await device.notes.save(FixtureEntity.make(5))
        #expect(try await device.outbox.changes().map(\.id) == [5])
        #expect(try await device.local.fetchAll().map(\.id) == [5])
        try await device.close()
    }

    @Test func aChangeTheOutboxTableRefusesLeavesTheLocalRowAsItWas() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("device.sqlite")
        let device = try await Device(url, remote: InMemoryRepository())
        try await device.notes.save(FixtureEntity.make(21, revision: 1))
        let raw = try RawDatabase(url)
        try raw.execute(
            """
            CREATE TRIGGER refuse_21 BEFORE UPDATE ON "repositories_outbox_FixtureEntity"
            BEGIN SELECT RAISE(ABORT, 'refused'); END
            """)
        await #expect(throws: RepositoryError.self) {
            try await device.notes.save(FixtureEntity.make(21, revision: 2))
        }
        await #expect(throws: RepositoryError.self) { try await device.notes.delete(id: 21) }
        #expect(try await device.local.fetch(id: 21) == FixtureEntity.make(21, revision: 1))
        let pending = try await device.outbox.changes()
        #expect(pending.count == 1)
        if case .save(let entity) = pending.first?.kind {
            #expect(entity == FixtureEntity.make(21, revision: 1))
        } else {
            Issue.record("the queued change is the first save: \(pending)")
        }
        try await device.close()
    }

    @Test func changesSyncAndSurviveAReopen() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("device.sqlite")
        let remote = InMemoryRepository<FixtureEntity>()
        var device = try await Device(url, remote: remote)
        try await device.notes.save(contentsOf: (0..<10).map(FixtureEntity.make))
        try await device.notes.delete(id: 3)
        try await device.notes.delete(ids: [4, 5])
        try await device.close()

        device = try await Device(url, remote: remote)
        #expect(try await device.outbox.changes().map(\.id) == Array(0..<10))
        try await device.notes.sync()
        #expect(try await remote.fetchAll().map(\.id).sorted() == [0, 1, 2, 6, 7, 8, 9])
        #expect(try await device.outbox.changes().isEmpty)
        try await device.notes.deleteAll()
        #expect(try await device.local.fetchAll().isEmpty)
        #expect(try await device.outbox.changes().count == 7)
        try await device.notes.sync()
        #expect(try await remote.fetchAll().isEmpty)

        // The tables sit beside the local one in the same file.
        let tables = try RawDatabase(url).strings(
            "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        #expect(tables.contains("repositories_outbox_FixtureEntity"))
        #expect(tables.contains("repositories_conflicts_FixtureEntity"))
        // No feed reads the outbox's tables: they keep no change log, and so no tombstones.
        #expect(!tables.contains { $0.hasPrefix("repositories_changes_repositories_") }, "\(tables)")
        try await device.close()
    }

    @Test func aDiscardRestoresTheRemotesVersionWithTheChangeRemovedAtOnce() async throws {
        let directory = try TemporaryDirectory()
        let remote = InMemoryRepository<FixtureEntity>()
        try await remote.save(FixtureEntity.make(1, revision: 1))
        let device = try await Device(directory.file("device.sqlite"), remote: remote)
        try await device.notes.sync()
        try await device.notes.save(FixtureEntity.make(1, revision: 2))
        try await device.notes.save(FixtureEntity.make(2, revision: 2))
        try await device.notes.discard(id: 1)
        try await device.notes.discard(id: 2)
        #expect(try await device.local.fetchAll() == [FixtureEntity.make(1, revision: 1)])
        #expect(try await device.outbox.changes().isEmpty)
        try await device.close()
    }

    @Test func aClosedOutboxRefusesWritesAndLeavesTheLocalStoreOpen() async throws {
        let directory = try TemporaryDirectory()
        let device = try await Device(directory.file("device.sqlite"), remote: InMemoryRepository())
        try await device.outbox.close()
        await #expect {
            try await device.notes.save(FixtureEntity.make(1))
        } throws: { error in
            (error as? RepositoryError)?.code == .closed
        }
        #expect(try await device.local.fetchAll().isEmpty, "nothing written")
        try await device.local.save(FixtureEntity.make(2))
        #expect(try await device.local.fetchAll().map(\.id) == [2])
        try await device.local.close()
    }

    @Test func anInMemoryDatabaseIsRefused() async throws {
        let local = try SQLiteRepository<FixtureEntity>.inMemory()
        await #expect {
            _ = try await Outbox(in: local)
        } throws: { error in
            (error as? RepositoryError)?.code == .rejected
        }
    }

    @Test func changesQueuedByAnEarlierReleaseAreUpgradedWithTheLocalRows() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("device.sqlite")
        let device = try await Device(url, remote: InMemoryRepository())
        try await device.notes.save(FixtureEntity.make(7, revision: 3))
        try await device.close()

        // The same table: by default each type names its own.
        let local = try await SQLiteRepository<FixtureEntityV2>(
            fileURL: url, options: SQLiteOptions(tableName: "FixtureEntity"),
            migrations: try FixtureEntityV2.migrations())
        let outbox = try await Outbox(in: local)
        let upgraded = FixtureEntityV2(upgrading: FixtureEntity.make(7, revision: 3))
        let pending = try await outbox.changes()
        guard case .save(let entity) = pending.first?.kind else {
            Issue.record("the queued save is kept: \(pending)")
            return
        }
        #expect(entity == upgraded)
        #expect(try await local.fetch(id: 7) == upgraded)
        try await outbox.close()
        try await local.close()
    }

    @Test func aClosedOutboxRefusesEveryWriteEvenOneThatReadsNothingFirst() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("device.sqlite")
        let remote = InMemoryRepository<FixtureEntity>()
        try await remote.save(FixtureEntity.make(1, revision: 1))
        var device = try await Device(url, remote: remote)
        try await device.notes.sync()
        try await remote.save(FixtureEntity.make(1, revision: 2))  // another client
        try await device.notes.save(FixtureEntity.make(1, revision: 3))
        try await device.notes.sync()  // a conflict, settled and kept
        var conflicts = device.notes.conflicts().makeAsyncIterator()
        let kept = try #require(await conflicts.next()?.first)

        try await device.outbox.close()
        // Acknowledging deletes the kept conflict without reading it first.
        await #expect {
            try await device.notes.acknowledge(conflict: kept)
        } throws: { error in
            (error as? RepositoryError)?.code == .closed
        }
        try await device.local.close()
        device = try await Device(url, remote: remote)
        var again = device.notes.conflicts().makeAsyncIterator()
        #expect(await again.next()?.map(\.id) == [kept.id], "the conflict is still kept")
        try await device.close()
    }

    @Test func manyTasksWritingAndSyncingAtOnceKeepEveryChangeWithItsRow() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("device.sqlite")
        let remote = InMemoryRepository<FixtureEntity>()
        let device = try await Device(url, remote: remote)
        // Writes to IDs ending in 7 are refused by the local table: each fails alone, while the
        // writes sharing its commit go through.
        try RawDatabase(url).execute(
            """
            CREATE TRIGGER refuse_sevens BEFORE INSERT ON "FixtureEntity" WHEN NEW.id % 10 = 7
            BEGIN SELECT RAISE(ABORT, 'refused'); END
            """)
        let refused = RefusalCount()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<16 {
                group.addTask {
                    for step in 0..<25 {
                        let id = task * 100 + step
                        do {
                            if step % 5 == 4 {
                                try await device.notes.delete(id: id - 1)
                            } else if step % 3 == 0 {
                                try await device.notes.save(
                                    contentsOf: [id, id + 50].map(FixtureEntity.make))
                            } else {
                                try await device.notes.save(FixtureEntity.make(id, revision: step))
                            }
                        } catch let error as RepositoryError where error.code == .conflict {
                            refused.add()
                        }
                    }
                }
            }
            group.addTask {
                for _ in 0..<10 { try await device.notes.sync() }
            }
            try await group.waitForAll()
        }
        #expect(refused.value > 0, "some writes were refused")
        let rows = Dictionary(uniqueKeysWithValues: try await device.local.fetchAll().map { ($0.id, $0) })
        for change in try await device.outbox.changes() {
            switch change.kind {
            case .save(let entity): #expect(rows[change.id] == entity, "\(change.id)")
            case .delete: #expect(rows[change.id] == nil, "\(change.id)")
            }
        }
        #expect(!rows.keys.contains { $0 % 10 == 7 }, "no refused row")
        try await device.notes.sync()
        let left = try await device.outbox.changes()
        #expect(left.isEmpty, "\(left.map { "\($0.id) \($0.status)" })")
        let stored = Dictionary(uniqueKeysWithValues: try await remote.fetchAll().map { ($0.id, $0) })
        #expect(stored == rows)
        try await device.close()
    }
}

extension SQLiteOutboxTests {
    @Test func anOutboxOpenedAgainOnTheSameStoreWrites() async throws {
        let directory = try TemporaryDirectory()
        let local = try await SQLiteRepository<FixtureEntity>(fileURL: directory.file("device.sqlite"))
        let remote = InMemoryRepository<FixtureEntity>()
        let first = try await Outbox(in: local)
        try await remote.offlineFirst(local: local, outbox: first, automaticSync: nil).save(
            FixtureEntity.make(1))
        try await first.close()
        let again = try await Outbox(in: local)
        let notes = remote.offlineFirst(local: local, outbox: again, automaticSync: nil)
        try await notes.save(FixtureEntity.make(2))
        #expect(try await again.changes().map(\.id) == [1, 2])
        try await notes.sync()
        #expect(try await remote.fetchAll().map(\.id).sorted() == [1, 2])
        try await again.close()
        try await local.close()
    }

    /// A device whose change to 1 meets another client's: the remote at revision 2, the device
    /// at 3, made on 1.
    private func conflicted(_ directory: TemporaryDirectory) async throws -> (
        Device, InMemoryRepository<FixtureEntity>, URL
    ) {
        let url = directory.file("device.sqlite")
        let remote = InMemoryRepository<FixtureEntity>()
        try await remote.save(FixtureEntity.make(1, revision: 1))
        let device = try await Device(url, remote: remote)
        try await device.notes.sync()
        try await remote.save(FixtureEntity.make(1, revision: 2))
        try await device.notes.save(FixtureEntity.make(1, revision: 3))
        return (device, remote, url)
    }

    @Test func keepingTheRemotesVersionDropsTheChangeAndWritesTheRowAtOnce() async throws {
        let directory = try TemporaryDirectory()
        let (device, remote, url) = try await conflicted(directory)
        try RawDatabase(url).execute(
            """
            CREATE TRIGGER refuse_drop BEFORE DELETE ON "repositories_outbox_FixtureEntity"
            BEGIN SELECT RAISE(ABORT, 'refused'); END
            """)
        let serverWins = remote.offlineFirst(
            local: device.local, outbox: device.outbox, conflicts: .serverWins, automaticSync: nil)
        do { try await serverWins.sync() } catch {}
        // The change could not be dropped, so the row kept the device's version with it.
        #expect(try await device.local.fetch(id: 1) == FixtureEntity.make(1, revision: 3))
        let pending = try await device.outbox.changes()
        guard case .save(let entity) = pending.first?.kind else {
            Issue.record("the change is still queued: \(pending)")
            return
        }
        #expect(entity == FixtureEntity.make(1, revision: 3))
        try await device.close()
    }

    @Test func aMergeReplacesTheChangeAndWritesTheRowAtOnce() async throws {
        let directory = try TemporaryDirectory()
        let (device, remote, url) = try await conflicted(directory)
        let merged = FixtureEntity.make(1, revision: 77)
        let merging = remote.offlineFirst(
            local: device.local, outbox: device.outbox, conflicts: .merge { _, _, _ in merged },
            automaticSync: nil)
        _ = try await merging.count()  // its first call replays the outbox onto the store: before the trigger
        try RawDatabase(url).execute(
            """
            CREATE TRIGGER refuse_merge BEFORE UPDATE ON "FixtureEntity" WHEN NEW.id = 1
            BEGIN SELECT RAISE(ABORT, 'refused'); END
            """)
        await #expect(throws: RepositoryError.self) { try await merging.sync() }
        // The row could not take the merge, so neither did the queued change.
        #expect(try await device.local.fetch(id: 1) == FixtureEntity.make(1, revision: 3))
        #expect(try await remote.fetch(id: 1) == FixtureEntity.make(1, revision: 2))
        let pending = try await device.outbox.changes()
        guard case .save(let entity) = pending.first?.kind else {
            Issue.record("the change is still queued: \(pending)")
            return
        }
        #expect(entity == FixtureEntity.make(1, revision: 3))
        try await device.close()
    }
}

/// How many writes the local table refused, counted from many tasks.
private final class RefusalCount: Sendable {
    private let count = Mutex(0)
    var value: Int { count.withLock { $0 } }
    func add() { count.withLock { $0 += 1 } }
}
