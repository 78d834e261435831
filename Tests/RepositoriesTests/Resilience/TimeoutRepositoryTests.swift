import Repositories
import RepositoriesTesting
import Testing

@Suite struct TimeoutRepositoryTests {
    @Test func conforms() async throws {
        // The clock never moves, so no call times out; every call still races a timer.
        try await RepositoryConformance(makeRepository: {
            InMemoryRepository<Item>().timeout(.seconds(5), clock: ManualClock())
        }).run()
    }

    @Test func aCallPastTheLimitIsCancelledAndThrowsTimedOut() async throws {
        let clock = ManualClock()
        let store = InMemoryRepository<Item>()
        let slow = FaultInjectingRepository(store, clock: clock)
        slow.addLatency(.seconds(30), to: [.save])
        let items = slow.timeout(.seconds(5), clock: clock)
        let save = Task { try await items.save(item(1)) }
        await clock.waitForSleepers(count: 2)  // the call's latency and the timer
        await clock.advance(by: .seconds(5))
        let error = await expectRepositoryError(.timedOut) { try await save.value }
        #expect(error?.description.contains("save(_:)") == true)
        // The call beneath was cancelled in its latency, so the save never reached the store.
        #expect(await eventually { clock.sleeperCount == 0 })
        await clock.advance(by: .seconds(60))
        #expect(try await store.count() == 0)
    }

    @Test func aCallWithinTheLimitReturnsItsAnswerAndStopsTheTimer() async throws {
        let clock = ManualClock()
        let slow = FaultInjectingRepository(InMemoryRepository<Item>([item(1)]), clock: clock)
        slow.addLatency(.seconds(2), to: [.fetch])
        let items = slow.timeout(.seconds(5), clock: clock)
        let fetch = Task { try await items.fetch(id: 1) }
        await clock.waitForSleepers(count: 2)
        await clock.advance(by: .seconds(2))
        #expect(try await fetch.value == item(1))
        #expect(await eventually { clock.sleeperCount == 0 })
    }

    @Test func theCallsOwnErrorPassesThrough() async throws {
        let failing = FaultInjectingRepository(InMemoryRepository<Item>())
        failing.failNext(of: .fetchAll, with: offline)
        let items = failing.timeout(.seconds(5), clock: ManualClock())
        await expectRepositoryError(.unavailable) { _ = try await items.fetchAll() }
    }

    @Test func cancellingTheCallerCancelsTheCallBeneath() async throws {
        let clock = ManualClock()
        let spy = SpyRepository(InMemoryRepository<Item>())
        let slow = FaultInjectingRepository(spy, clock: clock)
        slow.addLatency(.seconds(30), to: [.fetchAll])
        let items = slow.timeout(.seconds(60), clock: clock)
        let fetch = Task { try await items.fetchAll() }
        await clock.waitForSleepers(count: 2)
        fetch.cancel()
        await #expect(throws: CancellationError.self) { try await fetch.value }
        #expect(await eventually { clock.sleeperCount == 0 })
        #expect(spy.calls.isEmpty)
    }
}
