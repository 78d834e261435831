import Repositories
import RepositoriesTesting
import Testing

@Suite struct RetryingRepositoryTests {
    /// A repository whose `fetchAll()` throws the next error of `errors` (then succeeds),
    /// recording the clock's time at each attempt.
    struct Flaky: Sendable {
        let clock: ManualClock
        let attempts = Shared<[Duration]>([])
        let errors: Shared<[any Error]>
        let repository: AnyRepository<Item, Int>

        init(clock: ManualClock, errors: [any Error]) {
            self.clock = clock
            let attempts = self.attempts
            let remaining = Shared(errors)
            self.errors = remaining
            var repository = AnyRepository(InMemoryRepository<Item>([item(1)]))
            repository.onFetchAll = {
                attempts.update { $0.append(clock.now.offset) }
                var next: (any Error)?
                remaining.update { if !$0.isEmpty { next = $0.removeFirst() } }
                if let next { throw next }
                return [item(1)]
            }
            self.repository = repository
        }

        /// Waits for the attempt count to reach `count`, then for the retry's sleep.
        func waitForAttempt(_ count: Int) async -> Bool {
            await eventually { attempts.value.count == count }
        }
    }

    @Test func conforms() async throws {
        try await RepositoryConformance(makeRepository: {
            InMemoryRepository<Item>().retrying(RetryPolicy(seed: 1), clock: ManualClock())
        }).run()
    }

    @Test func theBackoffScheduleForASeedIsExact() async throws {
        let clock = ManualClock()
        let flaky = Flaky(clock: clock, errors: Array(repeating: offline, count: 5))
        let policy = RetryPolicy(
            maxAttempts: 5, baseDelay: .seconds(1), multiplier: 2, maxDelay: .seconds(6), seed: 42)
        let items = flaky.repository.retrying(policy, clock: clock)
        var generator = SeededRandomNumberGenerator(seed: 42)
        let delays = (1...4).map { policy.delay(beforeRetry: $0, using: &generator) }
        for (delay, ceiling) in zip(delays, [1, 2, 4, 6]) {
            #expect(delay >= .zero && delay <= .seconds(ceiling))
        }

        let task = Task { try await items.fetchAll() }
        for (index, delay) in delays.enumerated() {
            #expect(await flaky.waitForAttempt(index + 1))
            if delay > .zero {
                await clock.waitForSleepers(count: 1)
                await clock.advance(by: delay)
            }
        }
        await expectRepositoryError(.unavailable) { _ = try await task.value }
        let expected = delays.indices.map { delays[...$0].reduce(.zero, +) }
        #expect(flaky.attempts.value == [.zero] + expected)
    }

    @Test func anotherSeedGivesAnotherSchedule() {
        let policy = RetryPolicy(maxAttempts: 5, baseDelay: .seconds(1), maxDelay: .seconds(60))
        var first = SeededRandomNumberGenerator(seed: 1)
        var second = SeededRandomNumberGenerator(seed: 2)
        let one = (1...4).map { policy.delay(beforeRetry: $0, using: &first) }
        let other = (1...4).map { policy.delay(beforeRetry: $0, using: &second) }
        #expect(one != other)
    }

    @Test func withoutJitterTheWaitsDoubleUpToTheCap() async throws {
        let clock = ManualClock()
        let flaky = Flaky(clock: clock, errors: Array(repeating: offline, count: 4))
        let policy = RetryPolicy(
            maxAttempts: 5, baseDelay: .seconds(1), multiplier: 2, maxDelay: .seconds(5), jitter: .none)
        #expect(
            (1...4).map(policy.delayCeiling(beforeRetry:)) == [
                .seconds(1), .seconds(2), .seconds(4), .seconds(5),
            ])
        let task = Task { try await flaky.repository.retrying(policy, clock: clock).fetchAll() }
        for (attempt, wait) in [1, 2, 4, 5].enumerated() {
            #expect(await flaky.waitForAttempt(attempt + 1))
            await clock.waitForSleepers(count: 1)
            await clock.advance(by: .seconds(wait) - .nanoseconds(1))
            #expect(flaky.attempts.value.count == attempt + 1, "woke before its wait of \(wait) s")
            await clock.advance(by: .nanoseconds(1))
        }
        #expect(try await task.value == [item(1)])
        #expect(flaky.attempts.value == [.zero, .seconds(1), .seconds(3), .seconds(7), .seconds(12)])
    }

    @Test func onlyTransientErrorsAreRetriedByDefault() async throws {
        let clock = ManualClock()
        let flaky = Flaky(clock: clock, errors: [RepositoryError.rejected("bad request")])
        let items = flaky.repository.retrying(.default, clock: clock)
        await expectRepositoryError(.rejected) { _ = try await items.fetchAll() }
        #expect(flaky.attempts.value.count == 1)
        #expect(RetryPolicy.isTransient(RepositoryError.timedOut(after: .seconds(1), operation: "x")))
        #expect(RetryPolicy.isTransient(RepositoryError.locked(location: "x")))
        #expect(!RetryPolicy.isTransient(RepositoryError.circuitOpen(retryAfter: nil)))
        #expect(!RetryPolicy.isTransient(CancellationError()))
    }

    @Test func aTransientFailureThatClearsIsAnsweredByALaterAttempt() async throws {
        let clock = ManualClock()
        let flaky = Flaky(clock: clock, errors: [offline])
        let items = flaky.repository.retrying(RetryPolicy(baseDelay: .zero), clock: clock)
        #expect(try await items.fetchAll() == [item(1)])
        #expect(flaky.attempts.value.count == 2)
    }

    @Test func retryAfterRaisesTheWait() async throws {
        let clock = ManualClock()
        let busy = RepositoryError.unavailable("busy", retryAfter: .seconds(3))
        let flaky = Flaky(clock: clock, errors: [busy])
        let policy = RetryPolicy(baseDelay: .seconds(1), jitter: .none)
        let task = Task { try await flaky.repository.retrying(policy, clock: clock).fetchAll() }
        await clock.waitForSleepers(count: 1)
        await clock.advance(by: .seconds(1))
        #expect(flaky.attempts.value.count == 1)
        await clock.advance(by: .seconds(2))
        #expect(try await task.value == [item(1)])
        #expect(flaky.attempts.value == [.zero, .seconds(3)])
    }

    @Test func aRetryAfterBeyondTheMaximumDelayIsThrownAtOnce() async throws {
        let clock = ManualClock()
        let flaky = Flaky(
            clock: clock, errors: [RepositoryError.unavailable("later", retryAfter: .seconds(120))])
        let items = flaky.repository.retrying(RetryPolicy(maxDelay: .seconds(10)), clock: clock)
        let error = await expectRepositoryError(.unavailable) { _ = try await items.fetchAll() }
        #expect(error?.retryAfter == .seconds(120))
        #expect(flaky.attempts.value.count == 1)
    }

    @Test func cancellationDuringAWaitEndsTheRetries() async throws {
        let clock = ManualClock()
        let flaky = Flaky(clock: clock, errors: [offline, offline])
        let items = flaky.repository.retrying(RetryPolicy(baseDelay: .seconds(1)), clock: clock)
        let task = Task { try await items.fetchAll() }
        await clock.waitForSleepers(count: 1)
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(flaky.attempts.value.count == 1)
        #expect(clock.sleeperCount == 0)
    }

    @Test func aCustomPredicateDecidesWhatIsRetried() async throws {
        let clock = ManualClock()
        let flaky = Flaky(clock: clock, errors: [RepositoryError.conflict("stale version")])
        let policy = RetryPolicy(baseDelay: .zero) { ($0 as? RepositoryError)?.code == .conflict }
        #expect(try await flaky.repository.retrying(policy, clock: clock).fetchAll() == [item(1)])
        #expect(flaky.attempts.value.count == 2)
    }
}
