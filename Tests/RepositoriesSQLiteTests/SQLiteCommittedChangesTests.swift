import Foundation
import Repositories
import RepositoriesSQLite
import RepositoriesTestSupport
import Synchronization
import Testing

/// `committedChanges()`: the IDs any connection commits to a table reach a stream here, from
/// another instance, another process, or this instance; one task per repository follows the
/// log, and every commit after a stream's starting marker is reported.
@Suite struct SQLiteCommittedChangesTests {
    typealias Change = RepositoryChange<FixtureEntity>
    typealias Changes = AsyncThrowingStream<Change, any Error>

    /// How long a wait may take before the test fails: minutes, since in CI's whole run on two
    /// cores a task waits minutes for a thread.
    static let patience = Duration.seconds(300)

    /// A stream's changes as they arrive, gathered by a task of its own, so a test waits for
    /// what it expects with a deadline and never hangs on a stream that stays silent.
    final class Collector: Sendable {
        private struct Seen {
            var changes: [Change] = []
            /// Set once the stream ended: `nil` when it ended quietly.
            var end: Result<Void, any Error>?
        }
        private final class Shared: Sendable {
            let seen = Mutex(Seen())
        }
        private let shared = Shared()
        private let task = Mutex<Task<Void, Never>?>(nil)

        init(_ stream: Changes) {
            let shared = shared
            task.withLock {
                $0 = Task {
                    do {
                        for try await change in stream { shared.seen.withLock { $0.changes.append(change) } }
                        shared.seen.withLock { $0.end = .success(()) }
                    } catch {
                        shared.seen.withLock { $0.end = .failure(error) }
                    }
                }
            }
        }

        /// Stops iterating, which ends the stream's subscription.
        func stop() { task.withLock { $0?.cancel() } }

        deinit { stop() }

        /// The changes seen so far.
        var changes: [Change] { shared.seen.withLock { $0.changes } }

        /// Waits until `enough` holds for the changes seen, up to ``patience``; records an issue
        /// when it does not.
        @discardableResult
        func wait(
            until enough: @Sendable ([Change]) -> Bool, sourceLocation: SourceLocation = #_sourceLocation
        ) async throws -> [Change] {
            let deadline = ContinuousClock.now + SQLiteCommittedChangesTests.patience
            while true {
                let (changes, end) = shared.seen.withLock { ($0.changes, $0.end) }
                if enough(changes) { return changes }
                if let end {
                    Issue.record(
                        "the stream ended (\(end)) after \(changes.suffix(5))", sourceLocation: sourceLocation
                    )
                    return changes
                }
                guard ContinuousClock.now < deadline else {
                    Issue.record(
                        "the changes did not arrive within five minutes; seen: \(changes.suffix(5))",
                        sourceLocation: sourceLocation)
                    return changes
                }
                try await Task.sleep(for: .milliseconds(2))
            }
        }

        /// How the stream ended, waiting up to ``patience``; `nil` when it had not.
        func end() async throws -> Result<Void, any Error>? {
            let deadline = ContinuousClock.now + SQLiteCommittedChangesTests.patience
            while ContinuousClock.now < deadline {
                if let end = shared.seen.withLock({ $0.end }) { return end }
                try await Task.sleep(for: .milliseconds(2))
            }
            return nil
        }
    }

    /// The IDs the changes name, and whether one of them was `invalidatedAll`.
    static func ids(_ changes: [Change]) -> Set<Int> {
        var ids: Set<Int> = []
        for case .invalidated(let named) in changes { ids.formUnion(named) }
        return ids
    }

    @Test func itStartsWithAMarkerThenNamesTheIDsAnotherInstanceCommits() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("shared.sqlite")
        let here = try await SQLiteRepository<FixtureEntity>(fileURL: url)
        try await here.save(FixtureEntity.make(99))  // before the stream: covered by the marker
        let changes = Collector(here.committedChanges(checkingEvery: .milliseconds(5)))
        #expect(try await changes.wait { !$0.isEmpty } == [.invalidatedAll])
        let other = try await SQLiteRepository<FixtureEntity>(fileURL: url)
        try await other.save(contentsOf: [1, 2, 3].map(FixtureEntity.make))
        try await other.delete(id: 2)
        try await other.save(FixtureEntity.make(3, revision: 1))
        let seen = try await changes.wait { Self.ids($0).isSuperset(of: [1, 2, 3]) }
        #expect(Self.ids(seen) == [1, 2, 3], "only what was committed after the marker")
        #expect(seen.filter { $0 == .invalidatedAll }.count == 1)
        try await other.close()
        try await here.close()
    }

    /// Streams begin at random moments while another instance commits one ID after another,
    /// some while others follow the log, some alone (each of those starts the task anew):
    /// every ID whose save began after a stream's marker reaches that stream.
    @Test func noCommitAfterAStreamsMarkerIsMissedWhileStreamsComeAndGo() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("busy.sqlite")
        let here = try await SQLiteRepository<FixtureEntity>(fileURL: url)
        let writer = try await SQLiteRepository<FixtureEntity>(fileURL: url)
        let nextID = NextID()
        let writing = Task {
            var id = 0
            while !Task.isCancelled {
                nextID.store(id)
                try await writer.save(FixtureEntity.make(id))
                id += 1
            }
        }
        /// One stream: its marker, then the saves that began after it, up to a moment later.
        @Sendable func follow(_ name: String, pause: Duration) async throws {
            let changes = Collector(here.committedChanges(checkingEvery: .milliseconds(3)))
            defer { changes.stop() }
            try await changes.wait { $0.contains(.invalidatedAll) }
            let first = nextID.load() + 1
            try await Task.sleep(for: pause)
            // Until the save of `first` has returned, however slow the disk.
            let deadline = ContinuousClock.now + Self.patience
            while nextID.load() < first + 2 && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(1))
            }
            // Every save up to the one in progress has returned.
            let last = nextID.load() - 1
            try #require(last >= first, "the writer stopped saving")
            let seen = try await changes.wait { Self.ids($0).contains(last) }
            let missing = Set(first...last).subtracting(Self.ids(seen))
            #expect(missing.isEmpty, "\(name) missed \(missing.sorted().prefix(10))")
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for stream in 0..<12 {
                group.addTask {
                    try await Task.sleep(for: .milliseconds(stream * 15))
                    try await follow("stream \(stream) among others", pause: .milliseconds(30))
                }
            }
            try await group.waitForAll()
        }
        for round in 0..<20 {
            try await follow("stream \(round) alone", pause: .milliseconds(5 + round % 4 * 5))
            try await Self.expectNoStream(on: here)
        }
        writing.cancel()
        _ = await writing.result
        try await writer.close()
        try await here.close()
    }

    /// The ID the writer saves next, read by the streams' tasks.
    final class NextID: Sendable {
        private let value = Atomic<Int>(0)
        func store(_ id: Int) { value.store(id, ordering: .sequentiallyConsistent) }
        func load() -> Int { value.load(ordering: .sequentiallyConsistent) }
    }

    /// Waits up to ``patience`` for the repository's streams to end their subscriptions.
    static func expectNoStream(on repository: SQLiteRepository<FixtureEntity>) async throws {
        let deadline = ContinuousClock.now + Self.patience
        while repository.committedChangesStreamCount > 0 && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(2))
        }
        #expect(repository.committedChangesStreamCount == 0, "the streams' subscriptions ended")
    }

    /// One task checks for every stream, as often as the most eager asks, and no check runs
    /// once the last stream has ended.
    @Test func fiveStreamsAreServedByOneTaskThatStopsWithTheLast() async throws {
        let directory = try TemporaryDirectory()
        let here = try await SQLiteRepository<FixtureEntity>(fileURL: directory.file("checks.sqlite"))
        let collectors = (0..<5).map { _ in Collector(here.committedChanges(checkingEvery: .milliseconds(50)))
        }
        for collector in collectors { try await collector.wait { !$0.isEmpty } }
        let before = here.committedChangesCheckCount
        let started = ContinuousClock.now
        // At least 500 ms and ten checks, however slowly a loaded machine runs the task.
        let deadline = ContinuousClock.now + Self.patience
        while ContinuousClock.now - started < .milliseconds(500)
            || here.committedChangesCheckCount - before < 10
        {
            try #require(ContinuousClock.now < deadline, "the task stopped checking")
            try await Task.sleep(for: .milliseconds(10))
        }
        let checks = here.committedChangesCheckCount - before
        let elapsed = ContinuousClock.now - started
        // One task at 50 ms makes at most one check per 50 ms (plus the one under way); five
        // would make five times as many.
        #expect(checks <= Int(elapsed / .milliseconds(50)) + 1, "\(checks) checks in \(elapsed)")
        for collector in collectors { collector.stop() }
        try await Self.expectNoStream(on: here)
        // A check is counted in the same lock that tells it the streams are gone.
        let stopped = here.committedChangesCheckCount
        try await Task.sleep(for: .milliseconds(300))
        #expect(here.committedChangesCheckCount == stopped, "no check once the last stream ended")
        try await here.close()
    }

    /// A bulk write elsewhere (more IDs than one check reports) is one `.invalidatedAll`, not
    /// page after page, and the stream goes on from after it.
    @Test func aBulkWriteIsOneInvalidatedAll() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("bulk.sqlite")
        let here = try await SQLiteRepository<FixtureEntity>(fileURL: url)
        let changes = Collector(here.committedChanges(checkingEvery: .milliseconds(5)))
        try await changes.wait { !$0.isEmpty }
        let other = try await SQLiteRepository<FixtureEntity>(fileURL: url)
        try await other.save(contentsOf: (0..<2_000).map(FixtureEntity.make))
        try await changes.wait { $0.count >= 2 }
        try await other.save(FixtureEntity.make(5_000))
        let seen = try await changes.wait { Self.ids($0).contains(5_000) }
        #expect(seen.filter { $0 == .invalidatedAll }.count == 2, "the marker, then one for the bulk write")
        #expect(Self.ids(seen) == [5_000], "no page of the bulk write's IDs")
        try await other.close()
        try await here.close()
    }

    @Test func theStreamsOfOneRepositoryShareOneTaskThatStopsWithTheLast() async throws {
        let directory = try TemporaryDirectory()
        let here = try await SQLiteRepository<FixtureEntity>(fileURL: directory.file("shared-task.sqlite"))
        let collectors = (0..<5).map { _ in Collector(here.committedChanges()) }
        #expect(here.committedChangesStreamCount == 5)
        for collector in collectors { try await collector.wait { !$0.isEmpty } }
        try await here.save(FixtureEntity.make(1))
        for collector in collectors {
            let seen = try await collector.wait { Self.ids($0).contains(1) }
            #expect(seen.first == .invalidatedAll)
        }
        for collector in collectors { collector.stop() }
        try await Self.expectNoStream(on: here)
        // A later stream starts the task again.
        let again = Collector(here.committedChanges(checkingEvery: .milliseconds(5)))
        #expect(try await again.wait { !$0.isEmpty } == [.invalidatedAll])
        try await here.save(FixtureEntity.make(2))
        #expect(Self.ids(try await again.wait { Self.ids($0).contains(2) }) == [2])
        try await here.close()
    }

    @Test func thisInstancesOwnWritesAreReportedToo() async throws {
        let directory = try TemporaryDirectory()
        let here = try await SQLiteRepository<FixtureEntity>(fileURL: directory.file("own.sqlite"))
        let changes = Collector(here.committedChanges(checkingEvery: .milliseconds(5)))
        try await changes.wait { !$0.isEmpty }
        try await here.save(FixtureEntity.make(5))
        try await here.delete(id: 5)
        #expect(Self.ids(try await changes.wait { Self.ids($0).contains(5) }) == [5])
        try await here.close()
    }

    @Test func aCursorTheLogForgotSaysAnythingMayHaveChangedAndGoesOn() async throws {
        let directory = try TemporaryDirectory()
        let here = try await SQLiteRepository<FixtureEntity>(fileURL: directory.file("pruned.sqlite"))
        try await here.save(contentsOf: [1, 2].map(FixtureEntity.make))
        let changes = Collector(here.committedChanges(checkingEvery: .seconds(1)))
        try await changes.wait { !$0.isEmpty }
        // Within the second before the next check: the tombstone of 1 is no longer the log's
        // newest row, so the prune forgets it, and the stream's cursor expires.
        try await here.delete(id: 1)
        try await here.save(FixtureEntity.make(3))
        #expect(try await here.pruneTombstones(keeping: .newest(0)) == 1)
        let seen = try await changes.wait { $0.count > 1 }
        // Unless a check fell between the writes (a slow machine), the cursor expired.
        #expect(seen[1] == .invalidatedAll || Self.ids(seen).contains(1))
        // It goes on from the log's newest change.
        try await here.save(FixtureEntity.make(4))
        #expect(Self.ids(try await changes.wait { Self.ids($0).contains(4) }).contains(4))
        try await here.close()
    }

    @Test func theStreamEndsQuietlyWhenTheRepositoryClosesNotAtTheNextCheck() async throws {
        let directory = try TemporaryDirectory()
        let here = try await SQLiteRepository<FixtureEntity>(fileURL: directory.file("closing.sqlite"))
        let changes = Collector(here.committedChanges(checkingEvery: .seconds(3_600)))
        try await changes.wait { !$0.isEmpty }
        try await here.close()
        let end = try await changes.end()
        #expect(Self.endedQuietly(end), "\(String(describing: end))")
    }

    @Test func theStreamEndsWhenTheRepositoryIsReleased() async throws {
        let directory = try TemporaryDirectory()
        var here: SQLiteRepository<FixtureEntity>? = try await SQLiteRepository<FixtureEntity>(
            fileURL: directory.file("released.sqlite"))
        let changes = Collector(here!.committedChanges(checkingEvery: .milliseconds(5)))
        try await changes.wait { !$0.isEmpty }
        here = nil
        let end = try await changes.end()
        #expect(Self.endedQuietly(end), "\(String(describing: end))")
    }

    static func endedQuietly(_ end: Result<Void, any Error>?) -> Bool {
        guard case .success = end else { return false }
        return true
    }

    @Test func damageToTheLogEndsTheStreamWithCorrupted() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("damaged.sqlite")
        let here = try await SQLiteRepository<FixtureEntity>(fileURL: url)
        let changes = Collector(here.committedChanges(checkingEvery: .milliseconds(5)))
        try await changes.wait { !$0.isEmpty }
        let raw = try RawDatabase(url)
        try raw.execute("DELETE FROM repositories_change_feeds")
        guard case .failure(let error as RepositoryError) = try await changes.end() else {
            Issue.record("the stream did not end by throwing a RepositoryError")
            return
        }
        #expect(error.code == .corrupted)
        #expect(error.location?.contains("damaged.sqlite") == true, "\(error)")
        try await here.close()
    }

    /// The "extension": another process saves 40 entities one by one; a list observed here
    /// through `observed(following:)` ends holding all of them.
    @Test func anotherProcessesCommitsReachAnObservedListHere() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("shared.sqlite")
        let here = try await SQLiteRepository<FixtureEntity>(fileURL: url)
        let screen = here.observed(following: here.committedChanges(checkingEvery: .milliseconds(5)))
        let latest = Mutex<[FixtureEntity]>([])
        let watching = Task {
            for try await list in screen.valuesAll() {
                latest.withLock { $0 = list }
                if list.count == 40 { return }
            }
        }
        let child = try ChildProcess(["sqlite-write", url.path, "1000", "40"])
        let lines = await child.finish()
        #expect(lines.last == "done", "\(lines.suffix(3))")
        let deadline = ContinuousClock.now + Self.patience
        while latest.withLock({ $0.count }) < 40 && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(2))
        }
        watching.cancel()
        #expect(latest.withLock { $0 } == (1_000..<1_040).map(FixtureEntity.make), "within five minutes")
        try await here.close()
    }
}
