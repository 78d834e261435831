import Foundation
import Repositories
import RepositoriesTestSupport
import RepositoriesTesting
import Testing

@Suite struct CacheAsideRepositoryTests {
    typealias Source = SpyRepository<FaultInjectingRepository<InMemoryRepository<Item>>>
    typealias Cache = FaultInjectingRepository<InMemoryRepository<Cached<Item>>>

    let clock = ManualClock()
    let store = InMemoryRepository<Item>()
    let faults: FaultInjectingRepository<InMemoryRepository<Item>>
    let source: Source
    let cacheStore = InMemoryRepository<Cached<Item>>()
    let cache: Cache
    let failures = TierFailureLog()
    let timeToLive = Duration.seconds(60)
    let items: CacheAsideRepository<Source, Cache>

    init() {
        faults = FaultInjectingRepository(store)
        source = SpyRepository(faults)
        cache = FaultInjectingRepository(cacheStore)
        items = source.cached(
            in: cache, timeToLive: timeToLive, clock: clock, startDate: referenceDate,
            onTierFailure: failures.record)
    }

    private var sourceReads: Int { source.calls.filter { !$0.operation.isWrite }.count }

    // MARK: Conformance

    @Test func conforms() async throws {
        try await RepositoryConformance(makeRepository: {
            InMemoryRepository<Item>().cached(
                in: InMemoryRepository<Cached<Item>>(), timeToLive: .seconds(3_600), clock: ManualClock(),
                startDate: referenceDate)
        }).run()
    }

    @Test func conformsWithACacheTooSmallToHoldTheCollection() async throws {
        // Evictions must never show as missing entities: a whole collection the cache no
        // longer holds is read from the source again.
        try await RepositoryConformance(makeRepository: {
            InMemoryRepository<Item>().cached(
                in: InMemoryRepository<Cached<Item>>(capacity: 8), timeToLive: .seconds(3_600),
                clock: ManualClock(), startDate: referenceDate)
        }).run()
    }

    // MARK: Time to live

    @Test func aFreshEntryIsServedWithoutTouchingTheSource() async throws {
        try await store.save(item(1))
        #expect(try await items.fetch(id: 1) == item(1))
        await clock.advance(by: timeToLive - .milliseconds(1))  // Dates keep about a microsecond
        #expect(try await items.fetch(id: 1) == item(1))
        #expect(sourceReads == 1)
        #expect(try await cacheStore.fetch(id: 1) == Cached(item(1), storedAt: referenceDate))
    }

    @Test func anExpiredEntryIsReadAgainFromTheSource() async throws {
        try await store.save(item(1))
        _ = try await items.fetch(id: 1)
        try await store.save(item(1, 1))  // changed behind the cache's back
        await clock.advance(by: timeToLive)
        #expect(try await items.fetch(id: 1) == item(1, 1))
        #expect(sourceReads == 2)
        #expect(try await cacheStore.fetch(id: 1)?.storedAt == referenceDate.addingTimeInterval(60))
    }

    @Test func anEntrysAgeSurvivesAReopenOfTheCacheStore() async throws {
        try await store.save(item(1))
        _ = try await items.fetch(id: 1)

        // The process ends 30 s later; a new one opens the same cache store.
        let reopened = source.cached(
            in: cache, timeToLive: timeToLive, clock: ManualClock(),
            startDate: referenceDate.addingTimeInterval(30))
        #expect(try await reopened.fetch(id: 1) == item(1))
        #expect(sourceReads == 1, "an entry 30 s old is still fresh")

        // Another restart, a minute after the entry was stored: it has expired meanwhile.
        try await store.save(item(1, 1))
        let later = source.cached(
            in: cache, timeToLive: timeToLive, clock: ManualClock(),
            startDate: referenceDate.addingTimeInterval(60))
        #expect(try await later.fetch(id: 1) == item(1, 1))
        #expect(sourceReads == 2)
    }

    @Test func aCacheHeldInAFileKeepsItsAgesAcrossCloseAndReopen() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("cache.store")
        try await store.save(contentsOf: [item(1), item(2)])
        func open(secondsLater: TimeInterval) async throws -> (
            FileRepository<Cached<Item>>, CacheAsideRepository<Source, FileRepository<Cached<Item>>>
        ) {
            let file = try await FileRepository<Cached<Item>>(fileURL: url)
            let items = source.cached(
                in: file, timeToLive: timeToLive, clock: ManualClock(),
                startDate: referenceDate.addingTimeInterval(secondsLater))
            return (file, items)
        }

        let (firstFile, first) = try await open(secondsLater: 0)
        _ = try await first.fetch(id: 1)
        try await firstFile.close()

        let (secondFile, second) = try await open(secondsLater: 30)
        #expect(try await second.fetch(id: 1) == item(1))
        #expect(sourceReads == 1, "30 s after it was stored, the entry read back from the file is fresh")
        #expect(try await secondFile.fetch(id: 1)?.storedAt == referenceDate)
        try await secondFile.close()

        try await store.save(item(1, 1))
        let (thirdFile, third) = try await open(secondsLater: 90)
        #expect(try await third.fetch(id: 1) == item(1, 1), "90 s after, it expired while closed")
        #expect(sourceReads == 2)
        #expect(try await thirdFile.fetch(id: 1)?.storedAt == referenceDate.addingTimeInterval(90))
        try await thirdFile.close()
    }

    @Test func anEntryStampedInTheFutureCountsAsExpired() async throws {
        try await store.save(item(1, 1))
        try await cacheStore.save(Cached(item(1), storedAt: referenceDate.addingTimeInterval(3_600)))
        #expect(try await items.fetch(id: 1) == item(1, 1))
        #expect(sourceReads == 1)
    }

    @Test func theWholeCollectionIsCachedWithItsOwnAge() async throws {
        try await store.save(contentsOf: [item(2), item(1)])
        #expect(try await items.fetchAll() == [item(2), item(1)])
        #expect(try await items.fetchAll() == [item(2), item(1)])
        #expect(try await items.count() == 2)
        #expect(try await items.fetch(id: 1) == item(1), "filled by the whole read")
        #expect(sourceReads == 1)
        await clock.advance(by: timeToLive)
        _ = try await items.fetchAll()
        #expect(sourceReads == 2)
    }

    @Test func afterAReopenTheFirstWholeReadGoesToTheSourceWhileEntriesKeepTheirAges() async throws {
        try await store.save(contentsOf: [item(1), item(2)])
        _ = try await items.fetchAll()
        let reopened = source.cached(
            in: cache, timeToLive: timeToLive, clock: ManualClock(),
            startDate: referenceDate.addingTimeInterval(10))
        #expect(try await reopened.fetch(id: 2) == item(2))
        #expect(sourceReads == 1)
        #expect(try await reopened.fetchAll() == [item(1), item(2)])
        #expect(sourceReads == 2, "the whole collection's age lives in memory only")
    }

    @Test func aQueryIsAnsweredFromTheCachedCollectionWhileFresh() async throws {
        try await store.save(contentsOf: (1...5).map { item($0) })
        _ = try await items.fetchAll()
        let query = Query<Item>().filter { $0.id > 2 }.sorted(by: \.id, .descending).limit(2)
        #expect(try await items.fetch(query).map(\.id) == [5, 4])
        #expect(sourceReads == 1)
        await clock.advance(by: timeToLive)
        #expect(try await items.fetch(query).map(\.id) == [5, 4])
        #expect(source.operations.last == .fetchQuery)
    }

    @Test func fetchIDsTakesFreshEntriesAndReadsTheRestInOneCall() async throws {
        try await store.save(contentsOf: (1...3).map { item($0) })
        _ = try await items.fetch(id: 2)
        #expect(try await items.fetch(ids: [3, 2, 9, 1, 3]) == [item(3), item(2), item(1)])
        #expect(source.calls(to: .fetchIDs).map(\.ids) == [[3, 9, 1]])
        #expect(try await items.fetch(ids: [1, 3]) == [item(1), item(3)])
        #expect(source.calls(to: .fetchIDs).count == 1)
    }

    @Test func anAbsentIDIsNotCachedAndAnExpiredCopyOfItIsRemoved() async throws {
        #expect(try await items.fetch(id: 9) == nil)
        #expect(try await items.fetch(id: 9) == nil)
        #expect(sourceReads == 2)
        try await store.save(item(1))
        _ = try await items.fetch(id: 1)
        try await store.delete(id: 1)
        await clock.advance(by: timeToLive)
        #expect(try await items.fetch(id: 1) == nil)
        #expect(try await cacheStore.fetch(id: 1) == nil)
    }

    // MARK: Single flight and races

    @Test func aThousandConcurrentMissesForOneKeyMakeOneSourceCall() async throws {
        let slowClock = ManualClock()
        let spy = SpyRepository(InMemoryRepository<Item>([item(1)]))
        let slow = FaultInjectingRepository(spy, clock: slowClock)
        slow.addLatency(.seconds(1), to: [.fetch])
        let items = slow.cached(
            in: InMemoryRepository<Cached<Item>>(), timeToLive: timeToLive, clock: clock,
            startDate: referenceDate)
        try await withThrowingTaskGroup(of: Item?.self) { group in
            for _ in 0..<1_000 { group.addTask { try await items.fetch(id: 1) } }
            #expect(await eventually { items.waitingCallerCount == 1_000 })
            await slowClock.waitForSleepers(count: 1)
            await slowClock.advance(by: .seconds(1))
            for try await value in group { #expect(value == item(1)) }
        }
        #expect(spy.calls(to: .fetch).count == 1)
    }

    @Test func aReadThatRacedAWriteNeverPutsTheOlderValueBack() async throws {
        let gated = GatedRepository(InMemoryRepository<Item>([item(1, 0)]))
        let items = gated.cached(
            in: cacheStore, timeToLive: timeToLive, clock: clock, startDate: referenceDate)
        gated.close([.fetch], at: .afterBase, times: 1)
        let reader = Task { try await items.fetch(id: 1) }
        #expect(await eventually { gated.waitingCount == 1 })  // it read revision 0 and is held
        try await items.save(item(1, 1))
        gated.open()
        #expect(try await reader.value == item(1, 0))  // it began before the write
        #expect(try await cacheStore.fetch(id: 1) == nil, "the older value was not put back")
        #expect(try await items.fetch(id: 1) == item(1, 1))
    }

    @Test func aWholeReadThatRacedAWriteIsNotRemembered() async throws {
        let gated = GatedRepository(InMemoryRepository<Item>([item(1)]))
        let items = gated.cached(
            in: cacheStore, timeToLive: timeToLive, clock: clock, startDate: referenceDate)
        gated.close([.fetchAll], at: .afterBase, times: 1)
        let reader = Task { try await items.fetchAll() }
        #expect(await eventually { gated.waitingCount == 1 })
        try await items.save(item(2))
        gated.open()
        #expect(try await reader.value == [item(1)])
        #expect(try await items.fetchAll() == [item(1), item(2)])
    }

    // MARK: Partial failures

    @Test func aFailedSourceWriteStillDropsTheCachedCopyBecauseItMayHaveLanded() async throws {
        try await store.save(item(1))
        _ = try await items.fetch(id: 1)
        faults.failNext(of: .save, with: offline, when: .afterBase)
        await expectRepositoryError(.unavailable) { try await items.save(item(1, 1)) }
        #expect(try await cacheStore.fetch(id: 1) == nil)
        #expect(try await items.fetch(id: 1) == item(1, 1))
    }

    @Test func aFailedInvalidationSaysTheSourceHasTheWriteAndNeverServesTheStaleCopy() async throws {
        try await store.save(item(1))
        _ = try await items.fetch(id: 1)
        cache.failNext(of: .delete, with: offline)
        let error = await expectRepositoryError(.partiallyApplied) { try await items.save(item(1, 1)) }
        #expect(error?.description.contains("reached the source") == true)
        #expect(try await store.fetch(id: 1) == item(1, 1), "the source has the write")
        #expect(failures.stages == [], "the caller learns it from the error, not the callback")
        #expect(try await cacheStore.fetch(id: 1)?.value == item(1), "the stale copy is still in the cache…")
        #expect(try await items.fetch(id: 1) == item(1, 1), "…but is never served")
        #expect(try await cacheStore.fetch(id: 1)?.value == item(1, 1), "and the next fill repairs it")
        #expect(try await items.fetch(id: 1) == item(1, 1))
        #expect(sourceReads == 2)
    }

    @Test func aCacheReadFailureIsAnsweredByTheSource() async throws {
        try await store.save(item(1))
        cache.failNext(of: .fetch, with: offline)
        #expect(try await items.fetch(id: 1) == item(1))
        #expect(failures.stages == [.read])
        #expect(try await items.fetch(id: 1) == item(1))
        #expect(sourceReads == 1)
    }

    @Test func aFillFailureStillReturnsTheSourcesAnswer() async throws {
        try await store.save(item(1))
        cache.failNext(of: .save, with: offline)
        #expect(try await items.fetch(id: 1) == item(1))
        #expect(failures.stages == [.fill])
        #expect(try await items.fetch(id: 1) == item(1))
        #expect(sourceReads == 2, "nothing was cached, so the source answered again")
    }

    @Test func aSourceReadFailureIsThrownAndTheCacheIsUnchanged() async throws {
        faults.failNext(of: .fetch, with: offline)
        await expectRepositoryError(.unavailable) { _ = try await items.fetch(id: 1) }
        #expect(try await cacheStore.count() == 0)
    }

    // MARK: Invalidation

    @Test func explicitInvalidationMakesTheNextReadGoToTheSource() async throws {
        try await store.save(contentsOf: [item(1), item(2)])
        _ = try await items.fetchAll()
        try await store.save(item(1, 1))
        await items.invalidate(id: 1)
        #expect(try await items.fetch(id: 1) == item(1, 1))
        #expect(try await items.fetch(id: 2) == item(2))
        #expect(sourceReads == 2)
        try await store.save(item(2, 1))
        await items.invalidateAll()
        #expect(try await cacheStore.count() == 0)
        #expect(try await items.fetchAll() == [item(1, 1), item(2, 1)])
    }
}
