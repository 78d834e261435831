import Foundation
import Repositories
import RepositoriesTesting
import Testing

@testable import NumberFacts

/// The live client's cache, driven through the feature: a fresh fact makes no API request,
/// an expired one makes exactly one, and offline a cached fact is still served.
@MainActor
@Suite struct NumberFactCacheTests {
    private typealias State = SanagichFeature.State
    private let clock = ManualClock()
    private let api = SpyRepository(FaultInjectingRepository(InMemoryRepository(NumberFactCatalog.facts)))

    private func makeStore(son: Int) -> TestStore<SanagichFeature> {
        let facts = NumberFactClient.live(api: api, clock: clock, startDate: Date(timeIntervalSince1970: 0))
        return TestStore(initialState: State(son: son), feature: SanagichFeature(numberFact: facts))
    }

    private func askForFact(_ store: TestStore<SanagichFeature>, about number: Int) async throws {
        let fact = try #require(NumberFactCatalog.fact(about: number))
        await store.send(.faktSorash) {
            $0.fakt = nil
            $0.yuklanmoqda = true
        }
        await store.receive(.faktJavob(.success(fact))) {
            $0.yuklanmoqda = false
            $0.fakt = fact.text
        }
    }

    @Test func aFreshFactIsServedFromTheCacheAndAnExpiredOneFromTheAPI() async throws {
        let store = makeStore(son: 7)

        try await askForFact(store, about: 7)
        #expect(api.calls(to: .fetch).count == 1)

        try await askForFact(store, about: 7)
        await clock.advance(by: NumberFactClient.timeToLive - .seconds(1))
        try await askForFact(store, about: 7)
        #expect(api.calls(to: .fetch).count == 1, "a fresh fact must not reach the API")

        await clock.advance(by: .seconds(1))
        try await askForFact(store, about: 7)
        #expect(api.calls(to: .fetch).count == 2, "an expired fact is read again, once")
        #expect(api.calls(to: .fetch).map(\.ids) == [[7], [7]])
        await store.finish()
    }

    @Test func aNumberWithoutAFactIsNotCached() async {
        let store = makeStore(son: 101)
        for _ in 0..<2 {
            await store.send(.faktSorash) {
                $0.xato = nil
                $0.yuklanmoqda = true
            }
            await store.receive(.faktJavob(.failure(.notFound(id: 101)))) {
                $0.yuklanmoqda = false
                $0.xato = "No fact for 101: the numbers API has none."
            }
        }
        #expect(api.calls(to: .fetch).count == 2)
        await store.finish()
    }

    @Test func offlineACachedFactIsServedAndAnUncachedOneFailsClearly() async throws {
        let store = makeStore(son: 3)
        try await askForFact(store, about: 3)

        let offline = RepositoryError.unavailable("The numbers API cannot be reached")
        api.base.failNext(10, of: .fetch, with: offline)
        try await askForFact(store, about: 3)
        #expect(api.calls(to: .fetch).count == 1)

        await store.send(.oshirTugmasi) {
            $0.son = 4
            $0.fakt = nil
        }
        await store.send(.faktSorash) { $0.yuklanmoqda = true }
        await store.receive(.faktJavob(.failure(offline))) {
            $0.yuklanmoqda = false
            $0.xato =
                "Could not get a fact for 4: The numbers API cannot be reached. Try again later; the data source may be offline."
        }
        #expect(api.calls(to: .fetch).count == 2)
        await store.finish()
    }
}
