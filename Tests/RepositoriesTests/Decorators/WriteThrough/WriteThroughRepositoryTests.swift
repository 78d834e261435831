import Repositories
import RepositoriesTesting
import Testing

@Suite struct WriteThroughRepositoryTests {
    typealias Source = SpyRepository<FaultInjectingRepository<InMemoryRepository<Item>>>
    typealias Cache = FaultInjectingRepository<InMemoryRepository<Item>>

    let store = InMemoryRepository<Item>()
    let faults: FaultInjectingRepository<InMemoryRepository<Item>>
    let source: Source
    let cacheStore = InMemoryRepository<Item>()
    let cache: Cache
    let failures = TierFailureLog()
    let items: WriteThroughRepository<Source, Cache>

    init() {
        faults = FaultInjectingRepository(store)
        source = SpyRepository(faults)
        cache = FaultInjectingRepository(cacheStore)
        items = source.writeThrough(to: cache, onTierFailure: failures.record)
    }

    private var sourceReads: Int { source.calls.filter { !$0.operation.isWrite }.count }

    @Test func conforms() async throws {
        try await RepositoryConformance(makeRepository: {
            InMemoryRepository<Item>().writeThrough(to: InMemoryRepository<Item>())
        }).run()
    }

    @Test func writesReachTheSourceThenTheCacheBeforeReturning() async throws {
        try await items.save(item(1))
        try await items.save(contentsOf: [item(2), item(3)])
        #expect(try await store.fetchAll() == [item(1), item(2), item(3)])
        #expect(try await cacheStore.fetchAll() == [item(1), item(2), item(3)])
        try await items.delete(id: 2)
        try await items.delete(ids: [3])
        #expect(try await cacheStore.fetchAll() == [item(1)])
        try await items.deleteAll()
        #expect(try await store.count() == 0)
        #expect(try await cacheStore.count() == 0)
    }

    @Test func readsHitTheCacheAndFillOnAMiss() async throws {
        try await store.save(item(1))
        #expect(try await items.fetch(id: 1) == item(1))
        #expect(try await cacheStore.fetch(id: 1) == item(1))
        #expect(try await items.fetch(id: 1) == item(1))
        try await items.save(item(2))
        #expect(try await items.fetch(id: 2) == item(2))
        #expect(sourceReads == 1)
    }

    @Test func theWholeCollectionIsCachedUntilAWrite() async throws {
        try await store.save(contentsOf: [item(2), item(1)])
        #expect(try await items.fetchAll() == [item(2), item(1)])
        #expect(try await items.fetchAll() == [item(2), item(1)])
        #expect(try await items.count() == 2)
        #expect(sourceReads == 1)
        try await items.save(item(3))
        #expect(try await items.fetchAll() == [item(2), item(1), item(3)])
        #expect(sourceReads == 2)
    }

    @Test func aWholeReadMakesTheCacheHoldExactlyTheSourcesCollection() async throws {
        let cacheSpy = SpyRepository(InMemoryRepository<Item>([item(1), item(9)]))
        let items = source.writeThrough(to: cacheSpy)
        try await store.save(contentsOf: [item(1), item(2)])
        #expect(try await items.fetchAll() == [item(1), item(2)])
        #expect(
            try await cacheSpy.base.fetchAll() == [item(1), item(2)], "the copy the source lacks is gone")
        #expect(cacheSpy.calls(to: .saveContentsOf).map(\.entities) == [[item(2)]], "only what changed")
    }

    @Test func aFailedSourceWriteLeavesTheCacheAsItWas() async throws {
        try await items.save(item(1))
        faults.failNext(of: .save, with: offline)
        await expectRepositoryError(.unavailable) { try await items.save(item(1, 1)) }
        #expect(try await cacheStore.fetch(id: 1) == item(1))
        #expect(try await items.fetch(id: 1) == item(1))
    }

    @Test func aLostResponseOnASourceWriteNeverLetsTheCacheServeTheOlderCopy() async throws {
        try await items.save(item(1))
        faults.failNext(of: .save, with: offline, when: .afterBase)
        await expectRepositoryError(.unavailable) { try await items.save(item(1, 1)) }
        #expect(try await cacheStore.fetch(id: 1) == item(1), "the cache is left as it was…")
        #expect(try await items.fetch(id: 1) == item(1, 1), "…but this process reads the source")
        #expect(try await cacheStore.fetch(id: 1) == item(1, 1), "and the read repairs the cache")
    }

    @Test func aFailedCacheWriteRemovesTheCachesCopyAndSaysTheSourceHasIt() async throws {
        try await items.save(item(1))
        cache.failNext(of: .save, with: offline)
        let error = await expectRepositoryError(.partiallyApplied) { try await items.save(item(1, 1)) }
        #expect(error?.description.contains("reached the source") == true)
        #expect(error?.description.contains("old copy was removed") == true)
        #expect((error?.underlying as? RepositoryError)?.code == .unavailable)
        #expect(failures.stages == [], "the caller learns it from the error, not the callback")
        #expect(try await store.fetch(id: 1) == item(1, 1))
        #expect(try await cacheStore.fetch(id: 1) == nil)
        #expect(try await items.fetch(id: 1) == item(1, 1))
        #expect(try await cacheStore.fetch(id: 1) == item(1, 1))
    }

    @Test func aFailedCacheWriteWhoseRemovalAlsoFailsThrowsSayingSo() async throws {
        try await items.save(item(1))
        cache.failNext(of: .save, with: offline)
        cache.failNext(of: .delete, with: offline)
        let error = await expectRepositoryError(.partiallyApplied) { try await items.save(item(1, 1)) }
        #expect(error?.description.contains("still holds the old copy") == true)
        #expect((error?.underlying as? RepositoryError)?.code == .unavailable)
        #expect(try await store.fetch(id: 1) == item(1, 1), "the source has the write")
        #expect(try await cacheStore.fetch(id: 1) == item(1), "the cache kept the old copy…")
        #expect(try await items.fetch(id: 1) == item(1, 1), "…which is never served")
    }

    @Test func aFailedCacheDeleteThrowsSayingTheCopyRemains() async throws {
        try await items.save(item(1))
        cache.failNext(of: .delete, with: offline)
        let error = await expectRepositoryError(.partiallyApplied) { try await items.delete(id: 1) }
        #expect(error?.description.contains("reached the source") == true)
        #expect(try await store.fetch(id: 1) == nil)
        #expect(try await cacheStore.fetch(id: 1) == item(1))
        #expect(try await items.fetch(id: 1) == nil)
        #expect(try await cacheStore.fetch(id: 1) == nil, "the read removed the stale copy")
    }

    @Test func aReadThatRacedAWriteNeverPutsTheOlderValueBack() async throws {
        let gated = GatedRepository(InMemoryRepository<Item>([item(1, 0)]))
        let items = gated.writeThrough(to: cacheStore)
        gated.close([.fetch], at: .afterBase, times: 1)
        let reader = Task { try await items.fetch(id: 1) }
        #expect(await eventually { gated.waitingCount == 1 })
        try await items.save(item(1, 1))
        gated.open()
        #expect(try await reader.value == item(1, 0))
        #expect(try await cacheStore.fetch(id: 1) == item(1, 1))
        #expect(try await items.fetch(id: 1) == item(1, 1))
    }

    @Test func invalidationMakesTheNextReadGoToTheSource() async throws {
        try await items.save(item(1))
        try await store.save(item(1, 1))
        #expect(try await items.fetch(id: 1) == item(1))
        await items.invalidate(id: 1)
        #expect(try await items.fetch(id: 1) == item(1, 1))
        try await store.save(item(1, 2))
        await items.invalidateAll()
        #expect(try await items.fetch(id: 1) == item(1, 2))
    }
}
