import Foundation
import Repositories
import RepositoriesTestSupport
import RepositoriesTesting
import Testing

/// A chore of a shared household list: each device syncs only its owner's.
struct Chore: Identifiable, Codable, Sendable, Equatable, QueryableEntity {
    var id: Int
    var owner: String
    var title: String
    var done = false
    var due: Date? = nil

    static let queryableFields: [QueryableField<Chore>] = [
        QueryableField(\.owner, name: "owner"),
        QueryableField(\.done, name: "done"),
        QueryableField(\.due, name: "due"),
    ]

    static let owners = ["ana", "ben", "cy"]

    /// `count` chores, owned in turn by ana, ben and cy.
    static func household(_ count: Int) -> [Chore] {
        (0..<count).map { Chore(id: $0, owner: owners[$0 % owners.count], title: "chore \($0)") }
    }
}

/// An offline-first repository made with a `subset` pulls only the remote's entities that
/// meet it, removes here the ones that leave it on the remote, keeps its feed cursor with the
/// subset it was read for, and refuses a subset no feed can follow.
@Suite struct OfflineFirstPartialSyncTests {
    static let anas = Query<Chore>().where(\.owner == "ana")

    /// ana's chores as the remote holds them, in ID order.
    static func anas(of remote: some Repository<Chore, Int>) async throws -> [Chore] {
        try await remote.fetchAll().filter { $0.owner == "ana" }.sorted { $0.id < $1.id }
    }

    static func held<Remote>(_ device: FileDevice<Remote>) async throws -> [Chore]
    where Remote.Entity == Chore {
        try await device.local.fetchAll().sorted { $0.id < $1.id }
    }

    @Test func onlyTheSubsetIsPulled() async throws {
        let remote = CountingFeed(Chore.household(900))
        let device = try await FileDevice(remote, subset: Self.anas)
        let report = try await device.repository.sync()
        #expect(report.received == 300, "\(report)")
        #expect(try await Self.held(device) == (try await Self.anas(of: remote)))
        #expect(device.repository.subset?.conditions.map(\.description) == [#"owner == "ana""#])
        try await device.close()
    }

    /// The remote moves one of ana's chores to ben, gives one of cy's to ana, changes one of
    /// ana's, deletes one, and changes ben's chores, which are none of this device's business:
    /// the incremental pull removes the chore that left, brings the one that joined, and
    /// leaves the local store exactly ana's.
    @Test func anEntityThatLeavesTheSubsetOnTheRemoteIsRemovedHere() async throws {
        let remote = CountingFeed(Chore.household(90))
        let device = try await FileDevice(remote, subset: Self.anas)
        try await device.repository.sync()

        try await remote.save(Chore(id: 0, owner: "ben", title: "chore 0"))  // left
        try await remote.save(Chore(id: 2, owner: "ana", title: "chore 2"))  // joined
        try await remote.save(Chore(id: 3, owner: "ana", title: "chore 3", done: true))  // changed
        try await remote.delete(id: 6)  // deleted
        try await remote.save(
            contentsOf: [1, 4, 7].map { Chore(id: $0, owner: "ben", title: "ben's \($0)") })
        let report = try await device.repository.sync()

        #expect(report.pullWasIncremental, "\(report)")
        #expect(report.received == 4, "left, joined, changed, deleted: \(report)")
        #expect(try await device.local.fetch(id: 0) == nil)
        #expect(try await device.local.fetch(id: 2) == Chore(id: 2, owner: "ana", title: "chore 2"))
        #expect(try await Self.held(device) == (try await Self.anas(of: remote)))
        try await device.close()
    }

    /// A chore saved here for ben is sent like any other and kept here while it is pending;
    /// once the remote has it, the next pull finds it outside the subset and removes it here.
    @Test func aWriteOutsideTheSubsetIsSentThenLeaves() async throws {
        let remote = CountingFeed(Chore.household(30))
        let device = try await FileDevice(remote, subset: Self.anas)
        try await device.repository.sync()

        try await device.repository.save(Chore(id: 100, owner: "ben", title: "for ben"))
        #expect(try await device.repository.fetch(id: 100) != nil, "pending: still here")
        let report = try await device.repository.sync()
        #expect(report.sent == 1, "\(report)")
        #expect(try await remote.fetch(id: 100) == Chore(id: 100, owner: "ben", title: "for ben"))
        #expect(try await device.local.fetch(id: 100) == nil, "confirmed and outside the subset: gone")
        #expect(try await Self.held(device) == (try await Self.anas(of: remote)))
        try await device.close()
    }

    @Test func aPendingChangeOutlivesThePullThatFindsItsEntityLeft() async throws {
        let counting = CountingFeed(Chore.household(30))
        let remote = FaultInjectingRepository(counting)
        let device = try await FileDevice(remote, subset: Self.anas)
        try await device.repository.sync()
        // This device changes ana's chore 9 while the remote gives it to ben; the remote
        // refuses the change, so the pull runs with it still pending, and must not remove it.
        try await device.repository.save(Chore(id: 9, owner: "ana", title: "wash the car"))
        try await counting.save(Chore(id: 9, owner: "ben", title: "chore 9"))
        remote.failNext(of: [.save, .saveContentsOf], with: RepositoryError.rejected("not now (test)"))
        let report = try await device.repository.sync()
        #expect(report.rejections.count == 1, "\(report)")
        #expect(try await device.local.fetch(id: 9)?.title == "wash the car", "a pending change is kept")

        // Discarding it restores the remote's copy, which is outside the subset: not kept here.
        try await device.repository.discard(id: 9)
        #expect(try await device.local.fetch(id: 9) == nil)
        #expect(try await Self.held(device) == (try await Self.anas(of: counting)))
        try await device.close()
    }

    /// A push that settles on the remote's copy writes nothing to the remote, so the feed may
    /// have reported that copy before the cursor: when it is outside the subset, the push
    /// removes it here. Here the device deletes ana's chore 3 while a sync runs, after its
    /// push and before its pull, and the remote gives chore 3 to ben at that moment: the pull
    /// passes ben's change with the delete pending. The next sync settles the conflict on the
    /// remote's copy (a delete against a change keeps the change), which is ben's.
    @Test func aConflictSettledOnACopyOutsideTheSubsetLeavesNothingHere() async throws {
        let remote = HookedFeed(Chore.household(30))
        let counting = remote.base
        let device = try await FileDevice(remote, subset: Self.anas)
        try await device.repository.sync()

        remote.beforeNextPage {
            try await device.repository.delete(id: 3)
            try await counting.save(Chore(id: 3, owner: "ben", title: "chore 3"))
        }
        let first = try await device.repository.sync()
        #expect(first.pullWasIncremental)
        #expect(try await device.outbox.change(for: 3) != nil, "the delete waits")

        let second = try await device.repository.sync()
        #expect(second.conflictedIDs == [3], "\(second)")
        #expect(try await counting.fetch(id: 3)?.owner == "ben")
        #expect(try await device.local.fetch(id: 3) == nil, "ben's chore is not kept here")
        #expect(try await Self.held(device) == (try await Self.anas(of: counting)))
        try await device.close()
    }

    /// A write the remote applied though its answer said otherwise is passed by the pull
    /// while it waits (rejected, then retried): when the retry finds it applied, nothing new
    /// reaches the feed, so the push itself removes here what is outside the subset.
    @Test func aWriteAppliedBeforeThePullPassedItLeavesOnceConfirmed() async throws {
        let feed = HookedFeed(Chore.household(30))
        let remote = FaultInjectingRepository(feed)
        let device = try await FileDevice(remote, subset: Self.anas)
        try await device.repository.sync()

        try await device.repository.save(Chore(id: 100, owner: "ben", title: "for ben"))
        remote.failNext(
            of: [.save, .saveContentsOf], with: RepositoryError.rejected("refused after applying (test)"),
            when: .afterBase)
        let first = try await device.repository.sync()
        #expect(first.rejections[100] != nil, "\(first)")
        #expect(try await feed.base.fetch(id: 100) != nil, "the remote applied it")
        #expect(try await device.local.fetch(id: 100) != nil, "still waiting here")

        try await device.repository.retry(id: 100)
        let second = try await device.repository.sync()
        #expect(second.confirmed == 1, "\(second)")
        #expect(try await device.local.fetch(id: 100) == nil, "confirmed and outside the subset: gone")
        #expect(try await Self.held(device) == (try await Self.anas(of: feed.base)))
        try await device.close()
    }

    /// The cursor is kept with the subset it was read for: the same outbox opened with another
    /// subset (another user signed in) reads that subset in full once, then incrementally.
    @Test func anotherSubsetOnTheSameOutboxIsReadInFullOnce() async throws {
        let remote = CountingFeed(Chore.household(60))
        let directory = try TemporaryDirectory()
        var device = try await FileDevice(remote, subset: Self.anas, in: directory)
        try await device.repository.sync()
        try await device.close()

        device = try await FileDevice(remote, subset: Self.anas, in: directory)
        #expect(try await device.repository.sync().pullWasIncremental, "the same subset after a restart")
        try await device.close()

        let bens = Query<Chore>().where(\.owner == "ben")
        device = try await FileDevice(remote, subset: bens, in: directory)
        let report = try await device.repository.sync()
        #expect(!report.pullWasIncremental)
        #expect(report.fullPullReason?.contains("another subset") == true, "\(report)")
        #expect(try await Self.held(device).map(\.owner) == Array(repeating: "ben", count: 20))
        #expect(try await device.repository.sync().pullWasIncremental)
        try await device.close()

        // The whole collection is a subset of its own too.
        device = try await FileDevice(remote, in: directory)
        #expect(!(try await device.repository.sync().pullWasIncremental))
        #expect(try await device.local.count() == 60)
        try await device.close()
    }

    /// Subsets that differ only in a date's fraction of a second, or in a quote inside a
    /// text, are different subsets: neither uses the other's cursor.
    @Test func subsetsAreToldApartExactly() async throws {
        let remote = CountingFeed(
            Chore.household(6) + [Chore(id: 50, owner: #"a" && owner == "b"#, title: "x")])
        let directory = try TemporaryDirectory()
        var device = try await FileDevice(
            remote, subset: Query().where(\.owner == #"a" && owner == "b"#), in: directory)
        try await device.repository.sync()
        #expect(try await device.local.fetchAll().map(\.id) == [50])
        try await device.close()
        device = try await FileDevice(
            remote, subset: Query().where(.all(\.owner == "a", \.owner == "b")), in: directory)
        #expect(!(try await device.repository.sync().pullWasIncremental))
        #expect(try await device.local.fetchAll().isEmpty)
        try await device.close()

        // Due after 0.5 s past the hour and due after 0.25 s past it print alike to the second.
        let noon = Date(timeIntervalSince1970: 1_800_000_000)
        try await remote.save(Chore(id: 60, owner: "ana", title: "due", due: noon.addingTimeInterval(0.3)))
        device = try await FileDevice(
            remote, subset: Query().where(\.due > noon.addingTimeInterval(0.5)), in: directory)
        try await device.repository.sync()
        #expect(try await device.local.fetchAll().isEmpty)
        try await device.close()
        device = try await FileDevice(
            remote, subset: Query().where(\.due > noon.addingTimeInterval(0.25)), in: directory)
        let report = try await device.repository.sync()
        #expect(!report.pullWasIncremental, "\(report)")
        #expect(try await device.local.fetchAll().map(\.id) == [60])
        try await device.close()
    }

    /// A cursor file written before subsets (a bare token) is the whole collection's cursor.
    @Test func aCursorFileOfAnEarlierReleaseIsReadForTheWholeCollection() async throws {
        let remote = CountingFeed(Chore.household(12))
        let directory = try TemporaryDirectory()
        var device = try await FileDevice(remote, in: directory)
        try await device.repository.sync()
        try await device.close()
        let file = directory.url.appending(path: "device.outbox.cursor")
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.hasPrefix("repositories-pull-cursor 2\n"), "\(text)")
        let kept = try JSONDecoder().decode(
            [String: String].self, from: Data(text.split(separator: "\n")[1].utf8))
        try Data(try #require(kept["cursor"]).utf8).write(to: file)

        device = try await FileDevice(remote, in: directory)
        #expect(try await device.repository.sync().pullWasIncremental)
        try await device.close()
        device = try await FileDevice(remote, subset: Self.anas, in: directory)
        #expect(!(try await device.repository.sync().pullWasIncremental))
        try await device.close()
    }

    @Test func aSubsetNoFeedCanFollowIsRefused() async throws {
        let remote = CountingFeed(Chore.household(3))
        let local = InMemoryRepository<Chore>()
        let directory = try TemporaryDirectory()
        let outbox = try await Outbox<Chore>(fileURL: directory.url.appending(path: "o.outbox"))
        let refused: [(String, Query<Chore>)] = [
            ("filter closure", Self.anas.filter { $0.title.isEmpty }),
            ("sort key", Self.anas.sorted(by: \.title)),
            ("a limit of 20", Self.anas.limit(20)),
            ("an offset of 5", Self.anas.offset(5)),
            ("which Chore.queryableFields does not declare", Query().where(\.title == "x")),
        ]
        for (reason, subset) in refused {
            let error = #expect(throws: RepositoryError.self) {
                try remote.offlineFirst(local: local, outbox: outbox, subset: subset, automaticSync: nil)
            }
            #expect(error?.code == .rejected)
            #expect(error?.reason.contains(reason) == true, "\(error.map(String.init(describing:)) ?? "")")
        }
        try await outbox.close()
    }
}
