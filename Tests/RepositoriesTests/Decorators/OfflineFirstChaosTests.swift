import Repositories
import RepositoriesTesting
import Testing

/// The whole offline-first stack against a remote that fails half its calls at random and
/// answers after a random delay: a timeout, a circuit breaker and retries in front of it,
/// a local store beside it, and a memory cache on top.
@Suite struct OfflineFirstChaosTests {
    @Test func readsAreAnsweredWhenLocalHoldsTheDataAndNoWriteIsAcknowledgedThatTheRemoteLacks()
        async throws
    {
        let seed: UInt64 = 20_240_611
        let clock = ManualClock()
        let remoteStore = InMemoryRepository<Item>()
        let remote = FaultInjectingRepository(remoteStore, clock: clock)
        remote.injectRandomFaults(probability: 0.5, seed: seed)
        let localStore = InMemoryRepository<Item>()
        let circuitRefusals = Shared(0)
        let stack =
            remote
            .timeout(.milliseconds(180), clock: clock)
            .circuitBreaker(
                CircuitBreakerPolicy(
                    failureRatio: 0.8, minimumCalls: 5, windowSize: 10, breakDuration: .milliseconds(500)),
                clock: clock
            )
            .instrumented(clock: clock) { event in
                if case .failure(let error) = event.outcome, (error as? RepositoryError)?.code == .circuitOpen
                {
                    circuitRefusals.update { $0 += 1 }
                }
            }
            .retrying(
                RetryPolicy(
                    maxAttempts: 3, baseDelay: .milliseconds(50), maxDelay: .milliseconds(200), seed: seed),
                clock: clock
            )
            .fallback(to: localStore)
            .cached(in: InMemoryRepository<Cached<Item>>(), timeToLive: .seconds(2), clock: clock)

        /// Runs `body` while moving the clock, so latency, backoff and breaks pass.
        func drive<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async -> Result<
            T, any Error
        > {
            let done = Shared(false)
            let task = Task {
                defer { done.update { $0 = true } }
                return try await body()
            }
            while !done.value {
                await clock.advance(by: .milliseconds(25))
                await Task.yield()
            }
            return await task.result
        }

        var random = SeededRandomNumberGenerator(seed: seed)
        var tally = (reads: 0, writes: 0, acknowledged: 0)
        for step in 0..<10_000 {
            // Time passes between operations too, so breaks end and cache entries expire.
            await clock.advance(by: .milliseconds(Int.random(in: 0..<100, using: &random)))
            remote.addLatency(.milliseconds(Int.random(in: 0..<200, using: &random)))
            let index = Int.random(in: 0..<40, using: &random)
            let revision = step
            let context = "step \(step) (seed \(seed))"
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<45:
                tally.reads += 1
                let localCopy = try await localStore.fetch(id: index)
                let remoteCopy = try await remoteStore.fetch(id: index)
                let outcome = await drive { try await stack.fetch(id: index) }
                switch outcome {
                case .success(let found):
                    #expect(
                        found == remoteCopy || found == localCopy,
                        "\(context): fetch answered \(String(describing: found))")
                    // nil is right when the remote answered: a delete that timed out may have
                    // landed there, and the remote is the truth. With both holding a copy, a
                    // copy must come back, whichever tier answered.
                    if localCopy != nil && remoteCopy != nil {
                        #expect(found != nil, "\(context): neither copy was served")
                    }
                case .failure(let error):
                    #expect(localCopy == nil, "\(context): fetch threw \(error) while local held the entity")
                    if localCopy != nil { return }
                }
            case 45..<55:
                tally.reads += 1
                let localAll = try await localStore.fetchAll()
                let outcome = await drive { try await stack.fetchAll() }
                if case .failure(let error) = outcome {
                    #expect(
                        localAll.isEmpty,
                        "\(context): fetchAll threw \(error) while local held \(localAll.count)")
                    if !localAll.isEmpty { return }
                }
            case 55..<85:
                tally.writes += 1
                let entity = item(index, revision)
                if case .success = await drive({ try await stack.save(entity) }) {
                    tally.acknowledged += 1
                    let stored = try await remoteStore.fetch(id: index)
                    #expect(stored == entity, "\(context): an acknowledged save is missing from the remote")
                    if stored != entity { return }
                }
            case 85..<95:
                tally.writes += 1
                if case .success = await drive({ try await stack.delete(id: index) }) {
                    tally.acknowledged += 1
                    let stored = try await remoteStore.fetch(id: index)
                    #expect(stored == nil, "\(context): an acknowledged delete is still on the remote")
                    if stored != nil { return }
                }
            default:
                tally.writes += 1
                let batch = [item(index, revision), item((index + 1) % 40, revision)]
                if case .success = await drive({ try await stack.save(contentsOf: batch) }) {
                    tally.acknowledged += 1
                    let stored = try await remoteStore.fetch(ids: batch.map(\.id))
                    #expect(stored == batch, "\(context): an acknowledged batch is missing from the remote")
                    if stored != batch { return }
                }
            }
        }
        #expect(tally.reads + tally.writes == 10_000)
        #expect(
            tally.acknowledged > 1_000 && tally.acknowledged < tally.writes, "both outcomes were exercised")
        #expect(circuitRefusals.value > 0, "the circuit opened, and reads were served meanwhile")
        #expect(remote.injectedFaultCount > 1_000)
    }
}
