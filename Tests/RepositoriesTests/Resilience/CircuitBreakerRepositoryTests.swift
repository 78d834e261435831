import Repositories
import RepositoriesTesting
import Testing

@Suite struct CircuitBreakerRepositoryTests {
    let clock = ManualClock()
    let spy = SpyRepository(InMemoryRepository<Item>([item(1)]))
    let faults: FaultInjectingRepository<SpyRepository<InMemoryRepository<Item>>>
    let breaker: CircuitBreakerRepository<FaultInjectingRepository<SpyRepository<InMemoryRepository<Item>>>>

    init() {
        faults = FaultInjectingRepository(spy)
        breaker = faults.circuitBreaker(
            CircuitBreakerPolicy(
                failureRatio: 0.5, minimumCalls: 4, windowSize: 4, breakDuration: .seconds(10)),
            clock: clock)
    }

    private func succeed() async throws {
        _ = try await breaker.fetch(id: 1)
    }

    private func fail() async {
        faults.failNext(of: .fetch, with: offline)
        await expectRepositoryError(.unavailable) { _ = try await breaker.fetch(id: 1) }
    }

    @Test func conforms() async throws {
        try await RepositoryConformance(makeRepository: {
            InMemoryRepository<Item>().circuitBreaker(.default, clock: ManualClock())
        }).run()
    }

    @Test func itOpensWhenTheFailureRatioIsReachedWithEnoughCalls() async throws {
        try await succeed()
        await fail()
        await fail()
        #expect(breaker.state == .closed, "three calls are fewer than the minimum of four")
        try await succeed()
        #expect(breaker.state == .open, "two failures in four calls reach the ratio of 0.5")
    }

    @Test func anOpenCircuitRefusesWithoutCallingThroughUntilTheBreakEnds() async throws {
        for _ in 0..<4 { await fail() }
        #expect(breaker.state == .open)
        let callsBefore = spy.calls.count
        let refusal = await expectRepositoryError(.circuitOpen) { try await breaker.save(item(2)) }
        #expect(refusal?.retryAfter == .seconds(10))
        await clock.advance(by: .seconds(9))
        let later = await expectRepositoryError(.circuitOpen) { _ = try await breaker.fetchAll() }
        #expect(later?.retryAfter == .seconds(1))
        #expect(spy.calls.count == callsBefore)
        #expect(try await spy.base.fetch(id: 2) == nil, "a refused write writes nothing")
        await clock.advance(by: .seconds(1))
        #expect(breaker.state == .halfOpen)
    }

    @Test func aHalfOpenTrialThatSucceedsClosesTheCircuit() async throws {
        for _ in 0..<4 { await fail() }
        await clock.advance(by: .seconds(10))
        #expect(breaker.state == .halfOpen)
        try await succeed()
        #expect(breaker.state == .closed)
        await fail()
        #expect(breaker.state == .closed, "the window starts empty after closing")
    }

    @Test func aHalfOpenTrialThatFailsReopensTheCircuitForAnotherBreak() async throws {
        for _ in 0..<4 { await fail() }
        await clock.advance(by: .seconds(10))
        await fail()
        #expect(breaker.state == .open)
        let refusal = await expectRepositoryError(.circuitOpen) { try await succeed() }
        #expect(refusal?.retryAfter == .seconds(10))
        await clock.advance(by: .seconds(10))
        try await succeed()
        #expect(breaker.state == .closed)
    }

    @Test func onlyOneTrialRunsWhileHalfOpen() async throws {
        let gated = GatedRepository(FaultInjectingRepository(InMemoryRepository<Item>([item(1)])))
        let breaker = gated.circuitBreaker(
            CircuitBreakerPolicy(failureRatio: 1, minimumCalls: 1, windowSize: 1, breakDuration: .seconds(1)),
            clock: clock)
        gated.base.failNext(of: .fetch, with: offline)
        await expectRepositoryError(.unavailable) { _ = try await breaker.fetch(id: 1) }
        await clock.advance(by: .seconds(1))
        gated.close([.fetch], at: .beforeBase)
        let trial = Task { try await breaker.fetch(id: 1) }
        #expect(await eventually { gated.waitingCount == 1 })
        let refusal = await expectRepositoryError(.circuitOpen) { _ = try await breaker.fetch(id: 1) }
        #expect(refusal?.retryAfter == nil)
        gated.open()
        #expect(try await trial.value == item(1))
        #expect(breaker.state == .closed)
    }

    @Test func aCancelledTrialLetsTheNextCallBeTheTrial() async throws {
        let gated = GatedRepository(FaultInjectingRepository(InMemoryRepository<Item>([item(1)])))
        let breaker = gated.circuitBreaker(
            CircuitBreakerPolicy(failureRatio: 1, minimumCalls: 1, windowSize: 1, breakDuration: .seconds(1)),
            clock: clock)
        gated.base.failNext(of: .fetch, with: offline)
        await expectRepositoryError(.unavailable) { _ = try await breaker.fetch(id: 1) }
        await clock.advance(by: .seconds(1))
        gated.base.failNext(of: .fetch, with: CancellationError())
        await #expect(throws: CancellationError.self) { _ = try await breaker.fetch(id: 1) }
        #expect(breaker.state == .halfOpen)
        #expect(try await breaker.fetch(id: 1) == item(1))
        #expect(breaker.state == .closed)
    }

    @Test func answersThatAreNotFailuresDoNotOpenIt() async throws {
        for _ in 0..<8 {
            faults.failNext(of: .save, with: RepositoryError.rejected("invalid"))
            await expectRepositoryError(.rejected) { try await breaker.save(item(3)) }
        }
        #expect(breaker.state == .closed)
        #expect(!CircuitBreakerPolicy.isSourceFailure(CancellationError()))
        #expect(
            CircuitBreakerPolicy.isSourceFailure(RepositoryError.timedOut(after: .seconds(1), operation: "x"))
        )
    }

    @Test func theWindowSlidesOverTheMostRecentCalls() async throws {
        await fail()
        for _ in 0..<4 { try await succeed() }  // the first failure leaves the window
        await fail()
        #expect(breaker.state == .closed, "one failure in the last four calls")
        await fail()
        #expect(breaker.state == .open, "two failures in the last four calls")
    }
}
