import Foundation
import Repositories
import RepositoriesSQLite
import RepositoriesTestSupport
import Testing

/// `committedChanges()`: what any connection commits to a table reaches a stream here, from
/// another instance, another process, or this instance.
@Suite struct SQLiteCommittedChangesTests {
    /// The changes of `stream` until `enough` says the ones seen suffice; fails the test
    /// rather than hang when the stream ends first or a minute passes.
    static func collect(
        _ stream: AsyncStream<RepositoryChange<FixtureEntity>>,
        until enough: @escaping @Sendable ([RepositoryChange<FixtureEntity>]) -> Bool
    ) async throws -> [RepositoryChange<FixtureEntity>] {
        try await withThrowingTaskGroup(of: [RepositoryChange<FixtureEntity>]?.self) { group in
            group.addTask {
                var seen: [RepositoryChange<FixtureEntity>] = []
                for await change in stream {
                    seen.append(change)
                    if enough(seen) { return seen }
                }
                Issue.record("the stream ended after \(seen)")
                return seen
            }
            group.addTask {
                try await Task.sleep(for: .seconds(60))
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            guard let first else {
                Issue.record("the changes did not arrive within a minute")
                return []
            }
            return first
        }
    }

    /// The IDs saved and deleted, in the order the changes say them.
    static func ids(_ changes: [RepositoryChange<FixtureEntity>]) -> (saved: [Int], deleted: [Int]) {
        var saved: [Int] = []
        var deleted: [Int] = []
        for change in changes {
            switch change {
            case .saved(let entities): saved += entities.map(\.id)
            case .deleted(let ids): deleted += ids
            default: continue
            }
        }
        return (saved, deleted)
    }

    @Test func anotherInstancesCommitsArriveSavedAndDeletedAndOnlyThose() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("shared.sqlite")
        let here = try await SQLiteRepository<FixtureEntity>(fileURL: url)
        try await here.save(FixtureEntity.make(99))  // before the stream: not reported
        let stream = here.committedChanges(checkingEvery: .milliseconds(5))
        let other = try await SQLiteRepository<FixtureEntity>(fileURL: url)
        try await other.save(contentsOf: [1, 2, 3].map(FixtureEntity.make))
        try await other.delete(id: 2)
        try await other.save(FixtureEntity.make(3, revision: 1))
        // Until 2 is deleted and 3 holds its second save: a check may come between the writes.
        let changes = try await Self.collect(stream) { seen in
            Self.ids(seen).saved.contains(1) && Self.ids(seen).deleted.contains(2)
                && seen.contains(where: Self.holds3AtRevision1)
        }
        let (saved, deleted) = Self.ids(changes)
        #expect(!saved.contains(99) && !deleted.contains(99), "what was committed before the stream began")
        #expect(Set(saved + deleted).isSubset(of: [1, 2, 3]))
        try await other.close()
        try await here.close()
    }

    private static func holds3AtRevision1(_ change: RepositoryChange<FixtureEntity>) -> Bool {
        guard case .saved(let entities) = change else { return false }
        return entities.contains(FixtureEntity.make(3, revision: 1))
    }

    @Test func anotherProcessesCommitsReachAnObservedListHere() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("shared.sqlite")
        let here = try await SQLiteRepository<FixtureEntity>(fileURL: url)
        let screen = here.observed(following: here.committedChanges(checkingEvery: .milliseconds(5)))
        var lists = screen.valuesAll().makeAsyncIterator()
        #expect(try await lists.next()?.isEmpty == true)
        // The "extension": another process saves 40 entities one by one, then closes.
        let child = try ChildProcess(["sqlite-write", url.path, "1000", "40"])
        let lines = await child.finish()
        #expect(lines.last == "done", "\(lines.suffix(3))")
        var latest: [FixtureEntity] = []
        while latest.count < 40, let list = try await lists.next() { latest = list }
        #expect(latest.map(\.id) == Array(1_000..<1_040))
        #expect(latest == (1_000..<1_040).map(FixtureEntity.make))
        try await here.close()
    }

    @Test func thisInstancesOwnWritesAreReportedToo() async throws {
        let directory = try TemporaryDirectory()
        let here = try await SQLiteRepository<FixtureEntity>(fileURL: directory.file("own.sqlite"))
        let stream = here.committedChanges(checkingEvery: .milliseconds(5))
        try await here.save(FixtureEntity.make(5))
        let changes = try await Self.collect(stream) { Self.ids($0).saved.contains(5) }
        #expect(Self.ids(changes).saved == [5])
        try await here.close()
    }

    @Test func aCursorTheLogForgotSaysAnythingMayHaveChangedAndGoesOn() async throws {
        let directory = try TemporaryDirectory()
        let here = try await SQLiteRepository<FixtureEntity>(fileURL: directory.file("pruned.sqlite"))
        try await here.save(contentsOf: [1, 2].map(FixtureEntity.make))
        let stream = here.committedChanges(checkingEvery: .seconds(1))
        try await Task.sleep(for: .milliseconds(200))  // the stream has taken its starting point
        try await here.delete(id: 1)
        try await here.save(FixtureEntity.make(3))
        // The tombstone of 1 is no longer the log's newest row, so the prune forgets it.
        #expect(try await here.pruneTombstones(keeping: .newest(0)) == 1)
        let changes = try await Self.collect(stream) { seen in
            seen.contains(.invalidatedAll) || Self.ids(seen).deleted.contains(1)
        }
        // Unless a check fell between the writes, the stream's cursor expired.
        #expect(changes.contains(.invalidatedAll) || Self.ids(changes).deleted.contains(1))
        // And it goes on from the log's newest change.
        try await here.save(FixtureEntity.make(4))
        let later = try await Self.collect(stream) { Self.ids($0).saved.contains(4) }
        #expect(Self.ids(later).saved.contains(4))
        try await here.close()
    }

    @Test func theStreamEndsWhenTheRepositoryCloses() async throws {
        let directory = try TemporaryDirectory()
        let here = try await SQLiteRepository<FixtureEntity>(fileURL: directory.file("closing.sqlite"))
        let stream = here.committedChanges(checkingEvery: .milliseconds(5))
        try await here.close()
        var count = 0
        for await _ in stream { count += 1 }
        #expect(count == 0)
    }
}
