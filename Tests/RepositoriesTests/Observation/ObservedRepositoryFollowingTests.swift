import Foundation
import Repositories
import Synchronization
import Testing

/// `observed(following:)`: changes made elsewhere, reported by another sequence, reach the
/// value streams through `invalidate`, so copies beneath are dropped first.
/// A hang fails the suite, but only after ten minutes: in CI's whole run on two cores a
/// test waits minutes for a thread (a one-minute limit failed them all there).
@Suite(.timeLimit(.minutes(10))) struct ObservedRepositoryFollowingTests {
    typealias Changes = AsyncThrowingStream<RepositoryChange<Item>, any Error>

    @Test func aChangeMadeElsewhereDropsTheCachedCopyAndTheValueStreamReadsTheSource() async throws {
        let source = InMemoryRepository<Item>([item(1)])
        let cached = source.cached(in: InMemoryRepository<Cached<Item>>(), timeToLive: .seconds(3_600))
        let (followed, elsewhere) = Changes.makeStream()
        let screen = cached.observed(following: followed)
        var values = screen.values(id: 1).makeAsyncIterator()
        #expect(try await values.next() == .some(item(1)))
        // Another process writes the source; the cache still holds the first copy.
        try await source.save(item(1, 1))
        #expect(try await cached.fetch(id: 1) == item(1))
        elsewhere.yield(.invalidated([1]))
        #expect(try await values.next() == .some(item(1, 1)))
        try await source.delete(id: 1)
        elsewhere.yield(.deleted([1]))
        #expect(try await values.next() == .some(nil))
        try await source.save(item(1, 2))
        elsewhere.yield(.invalidatedAll)
        #expect(try await values.next() == .some(item(1, 2)))
    }

    /// The one-line form: the observed repository is released once the stream is made, and
    /// the stream keeps following.
    @Test func aValueStreamOfARepositoryReleasedAtOnceStillFollows() async throws {
        let source = InMemoryRepository<Item>([item(1)])
        let (followed, elsewhere) = Changes.makeStream()
        var values = Self.valuesOf(1, in: source, following: followed).makeAsyncIterator()
        #expect(try await values.next() == .some(item(1)))
        try await source.save(item(1, 1))
        elsewhere.yield(.invalidated([1]))
        #expect(try await values.next() == .some(item(1, 1)))
    }

    /// A value stream of an observed repository that does not outlive this call.
    private static func valuesOf(
        _ id: Int, in source: InMemoryRepository<Item>, following changes: Changes
    ) -> AsyncThrowingStream<Item?, any Error> {
        source.observed(following: changes).values(id: id)
    }

    @Test func everyKindOfChangeIsAnnouncedAsAnInvalidation() async throws {
        let (followed, elsewhere) = Changes.makeStream()
        let screen = InMemoryRepository<Item>().observed(following: followed)
        var changes = screen.changes().makeAsyncIterator()
        elsewhere.yield(.saved([item(1), item(2)]))
        #expect(await changes.next() == .invalidated([1, 2]))
        elsewhere.yield(.deleted([3]))
        #expect(await changes.next() == .invalidated([3]))
        elsewhere.yield(.invalidated([4]))
        #expect(await changes.next() == .invalidated([4]))
        elsewhere.yield(.deletedAll)
        #expect(await changes.next() == .invalidatedAll)
        elsewhere.yield(.invalidatedAll)
        #expect(await changes.next() == .invalidatedAll)
    }

    @Test func anErrorOfTheFollowedChangesEndsEveryValueStreamWithIt() async throws {
        let (followed, elsewhere) = Changes.makeStream()
        let screen = InMemoryRepository<Item>([item(1)]).observed(following: followed)
        var one = screen.values(id: 1).makeAsyncIterator()
        var all = screen.valuesAll().makeAsyncIterator()
        #expect(try await one.next() == .some(item(1)))
        #expect(try await all.next() == [item(1)])
        let damage = RepositoryError.corrupted("the change log's record is missing", location: "notes.sqlite")
        elsewhere.finish(throwing: damage)
        await expectRepositoryError(.corrupted) { _ = try await one.next() }
        await expectRepositoryError(.corrupted) { _ = try await all.next() }
        // A value stream begun later throws it at once rather than follow nothing.
        var later = screen.valuesAll().makeAsyncIterator()
        await expectRepositoryError(.corrupted) { _ = try await later.next() }
        // Writes through the repository itself still work.
        try await screen.save(item(2))
        #expect(try await screen.count() == 2)
    }

    @Test func followedChangesThatEndQuietlyLeaveTheValueStreamsFollowingTheirOwnWrites() async throws {
        let (followed, elsewhere) = Changes.makeStream()
        let screen = InMemoryRepository<Item>().observed(following: followed)
        var all = screen.valuesAll().makeAsyncIterator()
        #expect(try await all.next() == [])
        elsewhere.finish()
        try await screen.save(item(1))
        #expect(try await all.next() == [item(1)])
    }

    @Test func releasingTheRepositoryAndItsCopiesEndsTheIterationOfTheFollowedChanges() async throws {
        let (followed, elsewhere) = Changes.makeStream()
        let ended = Mutex(false)
        elsewhere.onTermination = { _ in ended.withLock { $0 = true } }
        do {
            let screen = InMemoryRepository<Item>().observed(following: followed)
            let copy = screen
            var changes = copy.changes().makeAsyncIterator()
            elsewhere.yield(.invalidated([1]))
            #expect(await changes.next() == .invalidated([1]))
            #expect(!ended.withLock { $0 })
        }
        // Released: the relay is cancelled, which ends the iteration (in its own task).
        let deadline = ContinuousClock.now + .seconds(300)
        while !ended.withLock({ $0 }) && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(ended.withLock { $0 }, "the followed changes were still iterated 5 minutes after the release")
    }
}
