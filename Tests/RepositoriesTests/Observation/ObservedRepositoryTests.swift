import Foundation
import Repositories
import RepositoriesTesting
import Testing

@Suite struct ObservedRepositoryTests {
    @Test func conforms() async throws {
        try await RepositoryConformance(makeRepository: { InMemoryRepository<Item>().observed() }).run()
    }

    @Test func everyWriteIsAnnouncedAfterItLands() async throws {
        let items = InMemoryRepository<Item>().observed()
        var changes = items.changes().makeAsyncIterator()
        try await items.save(item(1))
        #expect(await changes.next() == .saved([item(1)]))
        try await items.save(contentsOf: [item(2), item(3)])
        #expect(await changes.next() == .saved([item(2), item(3)]))
        try await items.delete(id: 1)
        #expect(await changes.next() == .deleted([1]))
        try await items.delete(ids: [2])
        #expect(await changes.next() == .deleted([2]))
        try await items.deleteAll()
        #expect(await changes.next() == .deletedAll)
    }

    @Test func aWriteThatThrowsAnnouncesAnInvalidationBecauseItMayHaveLanded() async throws {
        let faults = FaultInjectingRepository(InMemoryRepository<Item>())
        faults.failNext(of: .save, with: offline, when: .afterBase)
        faults.failNext(of: .deleteAll, with: offline)
        let items = faults.observed()
        var changes = items.changes().makeAsyncIterator()
        await expectRepositoryError(.unavailable) { try await items.save(item(1)) }
        #expect(await changes.next() == .invalidated([1]))
        await expectRepositoryError(.unavailable) { try await items.deleteAll() }
        #expect(await changes.next() == .invalidatedAll)
    }

    @Test func aValueStreamYieldsTheCurrentStateThenItsStateAfterEveryChange() async throws {
        let items = InMemoryRepository<Item>([item(1)]).observed()
        var values = items.values(id: 1).makeAsyncIterator()
        #expect(try await values.next() == .some(item(1)))
        try await items.save(item(1, 1))
        #expect(try await values.next() == .some(item(1, 1)))
        try await items.delete(id: 1)
        #expect(try await values.next() == .some(nil))
        try await items.save(item(1, 2))
        #expect(try await values.next() == .some(item(1, 2)))
    }

    @Test func theCollectionStreamFollowsEveryChange() async throws {
        let items = InMemoryRepository<Item>().observed()
        var values = items.valuesAll().makeAsyncIterator()
        #expect(try await values.next() == [])
        try await items.save(item(1))
        #expect(try await values.next() == [item(1)])
        try await items.save(contentsOf: [item(2), item(1, 1)])
        #expect(try await values.next() == [item(1, 1), item(2)])
        try await items.deleteAll()
        #expect(try await values.next() == [])
    }

    @Test func cancellingTheConsumerEndsTheStreamAndItsSubscription() async throws {
        let items = InMemoryRepository<Item>([item(1)]).observed()
        let seen = Shared(0)
        let consumer = Task {
            for try await _ in items.values(id: 1) { seen.update { $0 += 1 } }
        }
        #expect(await eventually { seen.value == 1 })
        #expect(items.observerCount == 1)
        consumer.cancel()
        _ = await consumer.result
        #expect(await eventually { items.observerCount == 0 })
    }

    @Test func aReadThatFailsEndsTheStreamWithItsError() async throws {
        let faults = FaultInjectingRepository(InMemoryRepository<Item>([item(1)]))
        let items = faults.observed()
        var values = items.values(id: 1).makeAsyncIterator()
        #expect(try await values.next() == .some(item(1)))
        faults.failNext(of: .fetch, with: offline)
        try await items.save(item(1, 1))
        await expectRepositoryError(.unavailable) { _ = try await values.next() }
    }

    @Test func invalidationDropsTheCachedCopyAndReachesLiveObservers() async throws {
        let source = InMemoryRepository<Item>([item(1)])
        let items = source.cached(
            in: InMemoryRepository<Cached<Item>>(), timeToLive: .seconds(3_600), clock: ManualClock(),
            startDate: referenceDate
        ).observed()
        var one = items.values(id: 1).makeAsyncIterator()
        var all = items.valuesAll().makeAsyncIterator()
        #expect(try await one.next() == .some(item(1)))
        #expect(try await all.next() == [item(1)])

        try await source.save(item(1, 1))  // changed elsewhere: the cache still says revision 0
        #expect(try await items.fetch(id: 1) == item(1))
        await items.invalidate(id: 1)
        #expect(try await one.next() == .some(item(1, 1)))
        #expect(try await all.next() == [item(1, 1)])

        try await source.save(item(2))
        await items.invalidateAll()
        #expect(try await all.next() == [item(1, 1), item(2)])
    }

    @Test func invalidationReachesEveryCacheInTheStack() async throws {
        let source = InMemoryRepository<Item>([item(1)])
        let inner = InMemoryRepository<Cached<Item>>()
        let outer = InMemoryRepository<Item>()
        let items =
            source
            .cached(in: inner, timeToLive: .seconds(3_600), clock: ManualClock(), startDate: referenceDate)
            .fallback(to: InMemoryRepository<Item>())
            .writeThrough(to: outer)
            .observed()
        #expect(try await items.fetch(id: 1) == item(1))
        #expect(try await inner.count() == 1)
        #expect(try await outer.count() == 1)
        try await source.save(item(1, 1))
        await items.invalidate(id: 1)
        #expect(try await inner.count() == 0)
        #expect(try await outer.count() == 0)
        #expect(try await items.fetch(id: 1) == item(1, 1))
    }

    @Test func invalidationWithoutACacheStillReachesObservers() async throws {
        let items = InMemoryRepository<Item>([item(1)]).observed()
        var changes = items.changes().makeAsyncIterator()
        await items.invalidate(ids: [1, 2])
        #expect(await changes.next() == .invalidated([1, 2]))
        await items.invalidateAll()
        #expect(await changes.next() == .invalidatedAll)
    }
}
