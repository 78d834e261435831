import Repositories
import RepositoriesTesting
import Testing

@Suite struct CoalescingRepositoryTests {
    @Test func conforms() async throws {
        try await RepositoryConformance(makeRepository: { InMemoryRepository<Item>().coalescing() }).run()
    }

    @Test func aThousandConcurrentReadsOfOneKeyMakeOneBaseCall() async throws {
        let clock = ManualClock()
        let slow = FaultInjectingRepository(InMemoryRepository<Item>([item(1)]), clock: clock)
        slow.addLatency(.seconds(1), to: [.fetch])
        let spy = SpyRepository(slow)
        let items = spy.coalescing()
        try await withThrowingTaskGroup(of: Item?.self) { group in
            for _ in 0..<1_000 { group.addTask { try await items.fetch(id: 1) } }
            #expect(await eventually { items.waitingCallerCount == 1_000 })
            await clock.waitForSleepers(count: 1)
            await clock.advance(by: .seconds(1))
            for try await value in group { #expect(value == item(1)) }
        }
        #expect(spy.calls(to: .fetch).count == 1)
        #expect(items.waitingCallerCount == 0)
    }

    @Test func concurrentWholeCollectionReadsShareOneCall() async throws {
        let gated = GatedRepository(InMemoryRepository<Item>([item(1), item(2)]))
        gated.close([.fetchAll, .count], at: .beforeBase)
        let spy = SpyRepository(gated)
        let items = spy.coalescing()
        async let first = items.fetchAll()
        async let second = items.fetchAll()
        async let counted = items.count()
        async let countedAgain = items.count()
        #expect(await eventually { items.waitingCallerCount == 4 })
        gated.open()
        #expect(try await first == [item(1), item(2)])
        #expect(try await second == [item(1), item(2)])
        #expect(try await counted == 2)
        #expect(try await countedAgain == 2)
        #expect(spy.operations.filter { $0 == .fetchAll }.count == 1)
        #expect(spy.operations.filter { $0 == .count }.count == 1)
    }

    @Test func aReadBegunBeforeAWriteIsNotSharedWithCallersAfterIt() async throws {
        let gated = GatedRepository(InMemoryRepository<Item>([item(1, 0)]))
        gated.close([.fetch], at: .afterBase, times: 1)
        let items = gated.coalescing()
        let early = Task { try await items.fetch(id: 1) }
        #expect(await eventually { gated.waitingCount == 1 })  // it holds revision 0
        try await items.save(item(1, 1))
        #expect(try await items.fetch(id: 1) == item(1, 1))
        gated.open()
        #expect(try await early.value == item(1, 0))
    }

    @Test func anErrorIsHandedToEveryWaitingCaller() async throws {
        let gated = GatedRepository(FaultInjectingRepository(InMemoryRepository<Item>()))
        gated.base.failNext(of: .fetch, with: offline)
        gated.close([.fetch], at: .beforeBase)
        let items = gated.coalescing()
        let callers = (0..<3).map { _ in Task { try await items.fetch(id: 1) } }
        #expect(await eventually { items.waitingCallerCount == 3 })
        gated.open()
        for caller in callers {
            await expectRepositoryError(.unavailable) { _ = try await caller.value }
        }
    }

    @Test func aCancelledCallerStopsWaitingWhileTheOthersGetTheAnswer() async throws {
        let gated = GatedRepository(InMemoryRepository<Item>([item(1)]))
        gated.close([.fetch], at: .beforeBase)
        let items = gated.coalescing()
        let leaving = Task { try await items.fetch(id: 1) }
        let staying = Task { try await items.fetch(id: 1) }
        #expect(await eventually { items.waitingCallerCount == 2 })
        leaving.cancel()
        await #expect(throws: CancellationError.self) { try await leaving.value }
        gated.open()
        #expect(try await staying.value == item(1))
    }

    @Test func whenEveryCallerIsCancelledTheSharedCallIsCancelled() async throws {
        let clock = ManualClock()
        let spy = SpyRepository(InMemoryRepository<Item>([item(1)]))
        let slow = FaultInjectingRepository(spy, clock: clock)
        slow.addLatency(.seconds(5), to: [.fetch])
        let items = slow.coalescing()
        let caller = Task { try await items.fetch(id: 1) }
        await clock.waitForSleepers(count: 1)
        caller.cancel()
        await #expect(throws: CancellationError.self) { try await caller.value }
        #expect(await eventually { clock.sleeperCount == 0 })
        #expect(spy.calls.isEmpty)
    }
}
