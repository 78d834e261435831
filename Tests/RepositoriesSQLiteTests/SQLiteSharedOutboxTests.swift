import Foundation
import Repositories
import RepositoriesSQLite
import RepositoriesTestSupport
import RepositoriesTesting
import Synchronization
import Testing

/// An outbox in an SQLite database opened by two instances at once, each on its own
/// connections, as an app and its extension open it: each reads and changes what the other
/// wrote, no change is lost or sent twice when one writes while the other syncs, and one
/// syncs at a time.
// In CI's whole run on two cores a task waits minutes for a thread (a test of 0.4 s alone
// took 11 minutes there): the limit catches a hang, not slowness.
@Suite(.timeLimit(.minutes(20))) struct SQLiteSharedOutboxTests {
    typealias Notes<Remote: Repository<FixtureEntity, Int>> = OfflineFirstRepository<
        Remote, SQLiteRepository<FixtureEntity>
    >

    /// One process's stack on the shared file.
    struct Instance<Remote: Repository<FixtureEntity, Int>>: Sendable {
        let local: SQLiteRepository<FixtureEntity>
        let outbox: Outbox<FixtureEntity>
        let notes: Notes<Remote>

        init(_ url: URL, remote: Remote, lockWait: Duration? = nil) async throws {
            local = try await SQLiteRepository<FixtureEntity>(fileURL: url)
            outbox = try await Outbox(in: local, lockWait: lockWait)
            notes = remote.offlineFirst(
                local: local, outbox: outbox, conflicts: .lastWriterWins, automaticSync: nil)
        }

        func close() async throws {
            try await outbox.close()
            try await local.close()
        }
    }

    /// `server`, whose single saves wait at `gate` before it applies them.
    static func holdingSaves(
        of server: HostileRemote<FixtureEntity>, at gate: Gate
    ) -> AnyRepository<FixtureEntity, Int> {
        var remote = AnyRepository<FixtureEntity, Int>(server)
        remote.onSave = { entity in
            await gate.pass()
            try await server.save(entity)
        }
        return remote
    }

    /// `expected`, once `sequence` gives it, iterating it from before `action` runs; the
    /// last element seen when five minutes pass first (the test then fails on its
    /// expectation rather than hanging), or when the sequence ends.
    static func first<Values: AsyncSequence & Sendable>(
        of sequence: Values, equalTo expected: Values.Element, after action: () async throws -> Void
    ) async throws -> Values.Element? where Values.Element: Sendable & Equatable {
        let (started, start) = AsyncStream.makeStream(of: Void.self)
        let watching = Task { () -> Values.Element? in
            var last: Values.Element?
            var iterator = sequence.makeAsyncIterator()
            start.yield()
            while let element = try await iterator.next() {
                last = element
                if element == expected { break }
            }
            return last
        }
        for await _ in started { break }
        let deadline = Task {
            try await Task.sleep(for: .seconds(300))
            watching.cancel()
        }
        defer { deadline.cancel() }
        try await action()
        return try await watching.value
    }

    @Test func eachInstanceReadsAndReplacesTheOthersChanges() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("device.sqlite")
        let remote = HostileRemote<FixtureEntity>()
        let app = try await Instance(url, remote: remote)
        let widget = try await Instance(url, remote: remote)
        try await app.notes.save(FixtureEntity.make(1, revision: 1))
        try await widget.notes.save(FixtureEntity.make(2, revision: 1))
        try await widget.notes.save(FixtureEntity.make(1, revision: 2))
        for instance in [app, widget] {
            let changes = try await instance.outbox.changes()
            #expect(changes.map(\.id) == [1, 2])
            #expect(
                changes.first?.kind == .save(FixtureEntity.make(1, revision: 2)),
                "the widget's change replaced the app's")
            #expect(try await instance.notes.fetch(id: 1) == FixtureEntity.make(1, revision: 2))
        }
        try await app.notes.sync()
        #expect(try await widget.outbox.changes().isEmpty, "the app's sync sent the widget's changes")
        #expect(remote.timesApplied(FixtureEntity.make(1, revision: 1)) == 0, "replaced before it was sent")
        #expect(remote.timesApplied(FixtureEntity.make(1, revision: 2)) == 1)
        #expect(remote.timesApplied(FixtureEntity.make(2, revision: 1)) == 1)
        try await app.close()
        try await widget.close()
    }

    /// The app's sync has sent 1 and waits for the answer when the widget changes 1 again: the
    /// widget's change must stay, to be sent next. With revisions counted by each instance
    /// alone, the widget's change took the revision of the one in flight, and the app's
    /// acknowledgement removed it: a write lost.
    @Test func aChangeMadeWhileTheOtherInstanceWaitsForAnAnswerIsKeptAndSentAfter() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("device.sqlite")
        let server = HostileRemote<FixtureEntity>()
        let gate = Gate()
        let remote = Self.holdingSaves(of: server, at: gate)
        let app = try await Instance(url, remote: remote)
        // Opened before the app's change: it read no revision on opening.
        let widget = try await Instance(url, remote: remote)
        try await app.notes.save(FixtureEntity.make(1, revision: 1))
        let sync = Task { _ = try await app.notes.sync() }
        await gate.waitForArrival()
        try await widget.notes.save(FixtureEntity.make(1, revision: 2))
        gate.open()
        try await sync.value
        let left = try await app.outbox.changes()
        #expect(left.map(\.kind) == [.save(FixtureEntity.make(1, revision: 2))], "the widget's change waits")
        #expect(try await app.local.fetch(id: 1) == FixtureEntity.make(1, revision: 2))
        try await widget.notes.sync()
        #expect(try await app.outbox.changes().isEmpty)
        #expect(try await server.fetch(id: 1) == FixtureEntity.make(1, revision: 2))
        #expect(server.timesApplied(FixtureEntity.make(1, revision: 1)) == 1)
        #expect(server.timesApplied(FixtureEntity.make(1, revision: 2)) == 1)
        #expect(server.overapplied.isEmpty, "\(server.overapplied)")
        try await app.close()
        try await widget.close()
    }

    /// A pull that read the pending changes before the widget saved must not write the
    /// remote's version over the widget's change: the widget saves just then, while the app's
    /// pull waits at its step before writing.
    @Test func aPullNeverWritesOverAChangeTheOtherInstanceJustMade() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("device.sqlite")
        let server = HostileRemote<FixtureEntity>([FixtureEntity.make(1, revision: 1)])
        let app = try await Instance(url, remote: server)
        try await app.notes.sync()
        let widget = try await Instance(url, remote: server)
        try await server.save(FixtureEntity.make(1, revision: 5))
        _OfflineFirstTestHooks.holdingStep.withLock { hook in
            hook = { step in if step == .pulling { await PullPause.atPulling?() } }
        }
        defer { _OfflineFirstTestHooks.holdingStep.withLock { $0 = nil } }
        let saved = Flag()
        let pause: @Sendable () async -> Void = {
            guard !saved.isRaised else { return }
            // The widget's save runs to its end while this pull holds what it read.
            do {
                try await widget.notes.save(FixtureEntity.make(1, revision: 2))
                saved.raise()
            } catch {
                Issue.record(error, "the widget's save failed")
            }
        }
        try await PullPause.$atPulling.withValue(pause) { _ = try await app.notes.sync() }
        #expect(saved.isRaised, "the widget saved while the pull waited")
        #expect(
            try await app.local.fetch(id: 1) == FixtureEntity.make(1, revision: 2),
            "the widget's change stays")
        #expect(try await app.outbox.changes().map(\.id) == [1])
        try await app.close()
        try await widget.close()
    }

    @Test func oneInstanceSyncsAtATime() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("device.sqlite")
        let server = HostileRemote<FixtureEntity>()
        let gate = Gate()
        let remote = Self.holdingSaves(of: server, at: gate)
        let app = try await Instance(url, remote: remote)
        let widget = try await Instance(url, remote: remote, lockWait: .milliseconds(50))
        try await app.notes.save(FixtureEntity.make(1))
        let sync = Task { _ = try await app.notes.sync() }
        await gate.waitForArrival()
        await #expect {
            try await widget.notes.sync()
        } throws: { error in
            (error as? RepositoryError)?.code == .locked
                && (error as? RepositoryError)?.reason.contains("syncing the outbox") == true
        }
        #expect(server.requests.count == 0, "the widget sent nothing")
        gate.open()
        try await sync.value
        try await widget.notes.sync()
        #expect(server.timesApplied(FixtureEntity.make(1)) == 1)
        try await app.close()
        try await widget.close()
    }

    @Test func theBadgeFollowsTheOtherInstancesChanges() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("device.sqlite")
        let server = HostileRemote<FixtureEntity>()
        let app = try await Instance(url, remote: server)
        let widget = try await Instance(url, remote: server)
        let badge = app.outbox.pendingChanges().map { $0.map(\.id) }
        let seen = try await Self.first(of: badge, equalTo: [7]) {
            try await widget.notes.save(FixtureEntity.make(7))
        }
        #expect(seen == [7], "the app's badge shows the widget's change")
        let after = try await Self.first(of: app.outbox.pendingChanges().map { $0.map(\.id) }, equalTo: []) {
            try await widget.notes.sync()
        }
        #expect(after == [], "and its end, after the widget's sync")
        try await app.close()
        try await widget.close()
    }

    @Test func theSnapshotsShowTheOtherInstancesWrites() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("device.sqlite")
        let server = HostileRemote<FixtureEntity>()
        let app = try await Instance(url, remote: server)
        let widget = try await Instance(url, remote: server)
        try await app.notes.save(FixtureEntity.make(1))
        let snapshots = app.notes.values(Query<FixtureEntity>()).map { snapshot in
            snapshot.entities.map(\.id).sorted() + snapshot.pendingIDs.sorted().map { -$0 }
        }
        let seen = try await Self.first(of: snapshots, equalTo: [1, 3, -1, -3]) {
            try await widget.notes.save(FixtureEntity.make(3))
        }
        #expect(seen == [1, 3, -1, -3], "the app's snapshot holds the widget's entity, pending")
        try await app.close()
        try await widget.close()
    }

    /// An outbox file written before the counter of revisions existed: the table starts
    /// empty, and the first change to the outbox fills it from the highest revision on disk,
    /// so a change that removes the highest one (a discard) cannot let another instance hand
    /// it out again.
    @Test func aCounterAnEarlierReleaseLeftEmptyIsFilledByTheFirstChange() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("device.sqlite")
        let server = HostileRemote<FixtureEntity>()
        var app = try await Instance(url, remote: server)
        try await app.notes.save(FixtureEntity.make(1))
        try await app.notes.save(FixtureEntity.make(2))
        try await app.close()
        try RawDatabase(url).execute(#"DROP TABLE "repositories_revisions_FixtureEntity""#)
        app = try await Instance(url, remote: server)
        try await app.notes.discard(id: 2)
        let kept = try RawDatabase(url).strings(
            #"SELECT revision FROM "repositories_revisions_FixtureEntity""#)
        #expect(kept == ["2"], "the discard kept the highest revision on disk, 2, in the counter")
        try await app.close()
    }

    @Test func theConflictsStreamFollowsTheOtherInstancesSyncs() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("device.sqlite")
        let server = HostileRemote<FixtureEntity>([FixtureEntity.make(1, revision: 1)])
        let app = try await Instance(url, remote: server)
        try await app.notes.sync()
        let widget = try await Instance(url, remote: server)
        try await server.save(FixtureEntity.make(1, revision: 5))  // another client's change
        try await widget.notes.save(FixtureEntity.make(1, revision: 2))
        let conflicts = app.notes.conflicts().map { $0.map(\.entityID) }
        let seen = try await Self.first(of: conflicts, equalTo: [1]) {
            try await widget.notes.sync()  // settles the conflict, and keeps it
        }
        #expect(seen == [1], "the app's conflicts stream shows the conflict the widget's sync kept")
        try await app.close()
        try await widget.close()
    }

    /// Many tasks (three per instance) in two instances write overlapping IDs while both sync, against a server
    /// that loses a fifth of its answers after applying, applies batches in part and
    /// normalises: every change reaches it exactly once, and both instances end on the last
    /// change of one of the writers of each ID.
    @Test func manyTasksInTwoInstancesLoseNothingAndDoubleNothing() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("device.sqlite")
        let server = HostileRemote<FixtureEntity>()
        server.normalize { entity in
            var entity = entity
            entity.blob = entity.blob.uppercased()
            return entity
        }
        server.appliesBatchesItemByItem = true
        server.loseAnswers(probability: 0.2, seed: 27)
        let instances = [try await Instance(url, remote: server), try await Instance(url, remote: server)]
        let lastWrites = LastWrites()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (number, instance) in instances.enumerated() {
                for task in 0..<3 {
                    group.addTask {
                        var last: [Int: FixtureEntity] = [:]
                        for step in 0..<20 {
                            let id = (task * 7 + step) % 12
                            var entity = FixtureEntity.make(id, revision: 1_000 * (number * 10 + task) + step)
                            entity.blob = "written by \(number) \(task)"
                            if step % 5 == 4 {
                                // Every change is the writer's own: applied twice is a double.
                                let other = FixtureEntity.make(
                                    id + 100, revision: 1_000 * (number * 10 + task) + step)
                                try await instance.notes.save(contentsOf: [entity, other])
                                last[other.id] = other
                            } else {
                                try await instance.notes.save(entity)
                            }
                            last[id] = entity
                        }
                        lastWrites.add(last)
                    }
                }
                group.addTask {
                    for _ in 0..<6 {
                        do {
                            try await instance.notes.sync()
                        } catch let error as RepositoryError where error.code == .unavailable {
                            continue  // an answer lost: the next sync sends it again
                        } catch let error as RepositoryError where error.code == .locked {
                            continue  // the other instance synced past lockWait: a later sync goes
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        server.stopLosingAnswers()
        for instance in instances + instances { try await instance.notes.sync() }
        for instance in instances {
            let left = try await instance.outbox.changes()
            #expect(left.isEmpty, "\(left.map { "\($0.id) \($0.status)" })")
        }
        #expect(server.overapplied.isEmpty, "\(server.overapplied)")
        let stored = try await server.fetchAll()
        let rows = try await instances[0].local.fetchAll()
        #expect(Set(stored.map(\.id)) == Set(rows.map(\.id)))
        for entity in stored {
            let candidates = lastWrites.of(entity.id)
            #expect(
                candidates.contains { $0.text == entity.text },
                "\(entity.id) holds \(entity.text), not the last change of any writer")
            #expect(rows.first { $0.id == entity.id } == entity, "the device holds the server's \(entity.id)")
        }
        try await instances[0].close()
        try await instances[1].close()
    }
}

/// The last change each writer made to each ID, collected from many tasks.
private final class LastWrites: Sendable {
    private let writes = Mutex<[Int: [FixtureEntity]]>([:])

    func add(_ last: [Int: FixtureEntity]) {
        writes.withLock { all in
            for (id, entity) in last { all[id, default: []].append(entity) }
        }
    }

    func of(_ id: Int) -> [FixtureEntity] { writes.withLock { $0[id] ?? [] } }
}

/// What a pull does at its step before writing, on the tasks of one test only.
private enum PullPause {
    @TaskLocal static var atPulling: (@Sendable () async -> Void)?
}
