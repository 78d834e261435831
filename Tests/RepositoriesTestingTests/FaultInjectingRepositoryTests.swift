import Repositories
import RepositoriesTesting
import Testing

@Suite struct FaultInjectingRepositoryTests {
    typealias Entity = ConformanceEntity

    @Test func passesTheConformanceSuiteWhenNoFaultIsQueued() async throws {
        try await RepositoryConformance(makeRepository: {
            FaultInjectingRepository(InMemoryRepository<Entity>())
        }).run()
    }

    @Test func failsTheNextNCallsThenRecovers() async throws {
        let store = FaultInjectingRepository(InMemoryRepository<Entity>())
        store.failNext(2, of: .save, with: RepositoryError.unavailable("offline"))
        for _ in 0..<2 {
            await #expect(throws: RepositoryError.self) { try await store.save(.make(index: 1, revision: 0)) }
        }
        try await store.save(.make(index: 1, revision: 0))
        #expect(try await store.base.fetchAll() == [.make(index: 1, revision: 0)])
        #expect(store.injectedFaultCount == 2)
    }

    @Test func aFaultBeforeTheBaseWritesNothing() async throws {
        let store = FaultInjectingRepository(InMemoryRepository<Entity>())
        store.failNext(of: .saveContentsOf, with: RepositoryError.unavailable("offline"))
        await #expect(throws: RepositoryError.self) {
            try await store.save(contentsOf: [.make(index: 1, revision: 0), .make(index: 2, revision: 0)])
        }
        #expect(try await store.base.count() == 0)
    }

    @Test func aFaultAfterTheBaseLetsTheWriteLand() async throws {
        let store = FaultInjectingRepository(InMemoryRepository<Entity>())
        store.failNext(of: .save, with: RepositoryError.unavailable("response lost"), when: .afterBase)
        await #expect(throws: RepositoryError.self) { try await store.save(.make(index: 1, revision: 0)) }
        #expect(try await store.base.fetch(id: 1) == .make(index: 1, revision: 0))
    }

    @Test func latencySleepsOnTheGivenClock() async throws {
        let clock = ManualClock()
        let store = FaultInjectingRepository(
            InMemoryRepository<Entity>([.make(index: 1, revision: 0)]), clock: clock)
        store.addLatency(.seconds(2), to: [.fetch])
        let fetch = Task { try await store.fetch(id: 1) }
        await clock.waitForSleepers(count: 1)
        #expect(try await store.fetchAll().count == 1, "operations without latency run at once")
        await clock.advance(by: .seconds(2))
        #expect(try await fetch.value == .make(index: 1, revision: 0))
    }

    @Test func randomFaultsRepeatForASeed() async throws {
        func pattern(seed: UInt64) async -> [Bool] {
            let store = FaultInjectingRepository(InMemoryRepository<Entity>())
            store.injectRandomFaults(probability: 0.5, seed: seed, operations: [.count])
            var outcomes: [Bool] = []
            for _ in 0..<40 {
                do {
                    _ = try await store.count()
                    outcomes.append(true)
                } catch {
                    outcomes.append(false)
                }
            }
            return outcomes
        }
        let first = await pattern(seed: 11)
        #expect(first == (await pattern(seed: 11)))
        #expect(first.contains(true) && first.contains(false))
        #expect(first != (await pattern(seed: 12)))
    }
}
