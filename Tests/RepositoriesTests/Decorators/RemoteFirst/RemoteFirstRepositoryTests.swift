import Repositories
import RepositoriesTesting
import Testing

@Suite struct RemoteFirstRepositoryTests {
    typealias Remote = SpyRepository<FaultInjectingRepository<InMemoryRepository<Item>>>
    typealias Local = FaultInjectingRepository<InMemoryRepository<Item>>

    let clock = ManualClock()
    let remoteStore = InMemoryRepository<Item>()
    let remoteFaults: FaultInjectingRepository<InMemoryRepository<Item>>
    let remote: Remote
    let localStore = InMemoryRepository<Item>()
    let local: Local
    let failures = TierFailureLog()
    let items: RemoteFirstRepository<Remote, Local>

    init() {
        remoteFaults = FaultInjectingRepository(remoteStore)
        remote = SpyRepository(remoteFaults)
        local = FaultInjectingRepository(localStore)
        items = remote.fallback(to: local, clock: clock, onTierFailure: failures.record)
    }

    // MARK: Conformance

    @Test func conforms() async throws {
        try await RepositoryConformance(makeRepository: {
            InMemoryRepository<Item>().fallback(to: InMemoryRepository<Item>())
        }).run()
    }

    @Test func conformsReadingLocalFirst() async throws {
        try await RepositoryConformance(makeRepository: {
            InMemoryRepository<Item>().fallback(to: InMemoryRepository<Item>(), readPolicy: .localFirst)
        }).run()
    }

    @Test func conformsBehindRetriesATimeoutAndABreaker() async throws {
        try await RepositoryConformance(makeRepository: {
            let clock = ManualClock()
            return InMemoryRepository<Item>()
                .timeout(.seconds(5), clock: clock)
                .circuitBreaker(.default, clock: clock)
                .retrying(RetryPolicy(seed: 3), clock: clock)
                .fallback(to: InMemoryRepository<Item>())
                .observed()
        }).run()
    }

    // MARK: Reads

    @Test func aRemoteAnswerIsMirroredIntoTheLocalStore() async throws {
        try await remoteStore.save(item(1))
        #expect(try await items.fetch(id: 1) == item(1))
        #expect(try await localStore.fetch(id: 1) == item(1))
        try await remoteStore.delete(id: 1)
        #expect(try await items.fetch(id: 1) == nil)
        #expect(try await localStore.fetch(id: 1) == nil, "a remote deletion reaches the local store")
        try await remoteStore.save(contentsOf: [item(2), item(3)])
        #expect(try await items.fetch(ids: [3, 2, 9]) == [item(3), item(2)])
        #expect(try await localStore.fetchAll() == [item(3), item(2)])
    }

    @Test func aCopyThatIsAlreadyCurrentIsNotWrittenAgain() async throws {
        let localSpy = SpyRepository(InMemoryRepository<Item>())
        let items = remote.fallback(to: localSpy)
        try await remoteStore.save(contentsOf: [item(1), item(2)])
        _ = try await items.fetch(id: 1)
        _ = try await items.fetch(id: 1)
        _ = try await items.fetchAll()
        _ = try await items.fetchAll()
        _ = try await items.fetch(ids: [1, 2, 3])
        #expect(localSpy.calls.filter(\.operation.isWrite).map(\.entities) == [[item(1)], [item(2)]])
        try await remoteStore.save(item(2, 1))
        _ = try await items.fetchAll()
        #expect(localSpy.calls.filter(\.operation.isWrite).last?.entities == [item(2, 1)])
    }

    @Test func aRemoteFailureIsAnsweredByTheLocalStore() async throws {
        try await localStore.save(contentsOf: [item(1), item(2)])
        remoteFaults.failNext(of: [.fetch, .fetchAll, .fetchIDs, .fetchQuery, .count], with: offline)
        #expect(try await items.fetch(id: 1) == item(1))
        #expect(try await items.fetchAll() == [item(1), item(2)])
        #expect(try await items.fetch(ids: [2, 3]) == [item(2)])
        #expect(try await items.fetch(Query<Item>().filter { $0.id == 2 }) == [item(2)])
        #expect(try await items.count() == 2)
    }

    @Test func anEmptyLocalStoreRethrowsTheRemoteError() async throws {
        remoteFaults.failNext(of: [.fetch, .fetchAll, .fetchIDs, .fetchQuery, .count], with: offline)
        await expectRepositoryError(.unavailable) { _ = try await items.fetch(id: 1) }
        await expectRepositoryError(.unavailable) { _ = try await items.fetchAll() }
        await expectRepositoryError(.unavailable) { _ = try await items.fetch(ids: [1]) }
        await expectRepositoryError(.unavailable) { _ = try await items.fetch(Query<Item>()) }
        await expectRepositoryError(.unavailable) { _ = try await items.count() }
    }

    @Test func cancellationNeverFallsBack() async throws {
        try await localStore.save(item(1))
        remoteFaults.failNext(of: .fetch, with: CancellationError())
        await #expect(throws: CancellationError.self) { _ = try await items.fetch(id: 1) }
    }

    @Test func aPredicateDecidesWhichFailuresFallBack() async throws {
        try await localStore.save(item(1))
        let picky = remote.fallback(to: local, when: { ($0 as? RepositoryError)?.code != .rejected })
        remoteFaults.failNext(of: .fetch, with: RepositoryError.rejected("unauthorized"))
        await expectRepositoryError(.rejected) { _ = try await picky.fetch(id: 1) }
        remoteFaults.failNext(of: .fetch, with: offline)
        #expect(try await picky.fetch(id: 1) == item(1))
    }

    @Test func anOpenCircuitIsAnsweredByTheLocalStoreWithoutCallingTheRemote() async throws {
        try await localStore.save(item(1))
        let policy = CircuitBreakerPolicy(
            failureRatio: 1, minimumCalls: 1, windowSize: 1, breakDuration: .seconds(30))
        let items = remote.circuitBreaker(policy, clock: clock).fallback(to: local)
        remoteFaults.failNext(of: .fetch, with: offline)
        #expect(try await items.fetch(id: 1) == item(1))
        let callsWhenOpened = remote.calls.count
        #expect(try await items.fetch(id: 1) == item(1))
        #expect(try await items.fetchAll() == [item(1)])
        #expect(remote.calls.count == callsWhenOpened, "the open circuit refused without calling through")
    }

    @Test func aSuccessfulFetchAllReplacesTheLocalCollection() async throws {
        try await localStore.save(contentsOf: [item(1), item(2, 0), item(3)])
        try await remoteStore.save(contentsOf: [item(2, 1), item(4)])
        #expect(try await items.fetchAll() == [item(2, 1), item(4)])
        #expect(try await localStore.fetchAll() == [item(2, 1), item(4)], "remote deletions propagate")
        remoteFaults.failNext(of: .fetchAll, with: offline)
        #expect(try await items.fetchAll() == [item(2, 1), item(4)])
    }

    @Test func aFailedMirrorNeverHidesTheRemoteAnswer() async throws {
        try await remoteStore.save(contentsOf: [item(1), item(2)])
        local.failNext(of: .save, with: offline)
        #expect(try await items.fetch(id: 1) == item(1))
        local.failNext(of: .saveContentsOf, with: offline)
        #expect(try await items.fetchAll() == [item(1), item(2)])
        #expect(failures.stages == [.fill, .fill])
        #expect(failures.all.map(\.operation) == [.fetch, .fetchAll])
        #expect(try await localStore.count() == 0)
    }

    @Test func aLocalCopyTheRemoteDeletedIsNeverServedWhenRemovingItFailed() async throws {
        try await localStore.save(contentsOf: [item(1), item(2)])
        try await remoteStore.save(item(2))
        local.failNext(of: .delete, with: offline)
        #expect(try await items.fetch(id: 1) == nil)
        local.failNext(of: .deleteIDs, with: offline)
        try await localStore.save(item(3))
        #expect(try await items.fetchAll() == [item(2)])
        #expect(try await localStore.fetchAll() == [item(1), item(2), item(3)], "the deletions failed…")
        remoteFaults.failNext(of: [.fetch, .fetchAll, .count], with: offline)
        await expectRepositoryError(.unavailable) { _ = try await items.fetch(id: 1) }
        #expect(try await items.fetchAll() == [item(2)], "…so the fallback leaves those copies out")
        #expect(try await items.count() == 1)
    }

    @Test func aReadThatRacedAWriteIsNotMirrored() async throws {
        let gated = GatedRepository(InMemoryRepository<Item>([item(1, 0)]))
        let items = gated.fallback(to: localStore)
        gated.close([.fetch], at: .afterBase, times: 1)
        let reader = Task { try await items.fetch(id: 1) }
        #expect(await eventually { gated.waitingCount == 1 })
        try await items.save(item(1, 1))
        gated.open()
        #expect(try await reader.value == item(1, 0))
        #expect(try await localStore.fetch(id: 1) == item(1, 1), "the older value was not put back")
    }

    // MARK: Writes

    @Test func remoteFailureOnWriteLeavesLocalUntouched() async throws {
        try await localStore.save(item(1))
        remoteFaults.failNext(of: [.save, .saveContentsOf, .delete, .deleteIDs, .deleteAll], with: offline)
        await expectRepositoryError(.unavailable) { try await items.save(item(1, 1)) }
        await expectRepositoryError(.unavailable) { try await items.save(contentsOf: [item(2)]) }
        await expectRepositoryError(.unavailable) { try await items.delete(id: 1) }
        await expectRepositoryError(.unavailable) { try await items.delete(ids: [1]) }
        await expectRepositoryError(.unavailable) { try await items.deleteAll() }
        #expect(try await localStore.fetchAll() == [item(1)])
    }

    @Test func localWriteFailureAfterRemoteSuccessRemovesTheLocalCopyAndThrows() async throws {
        try await items.save(item(1))
        local.failNext(of: .save, with: RepositoryError.locked(location: "local.db"))
        let error = await expectRepositoryError(.partiallyApplied) { try await items.save(item(1, 1)) }
        #expect(error?.description.contains("reached the remote") == true)
        #expect(error?.description.contains("old copy was removed") == true)
        #expect((error?.underlying as? RepositoryError)?.code == .locked)
        #expect(try await remoteStore.fetch(id: 1) == item(1, 1))
        #expect(try await localStore.fetch(id: 1) == nil, "no stale local copy is left behind")
    }

    @Test func aBatchWhoseLocalWriteFailsRemovesTheLocalCopies() async throws {
        try await items.save(contentsOf: [item(1), item(2)])
        local.failNext(of: .saveContentsOf, with: offline)
        await expectRepositoryError(.partiallyApplied) {
            try await items.save(contentsOf: [item(1, 1), item(3)])
        }
        #expect(try await remoteStore.fetchAll() == [item(1, 1), item(2), item(3)])
        #expect(try await localStore.fetchAll() == [item(2)])
    }

    @Test func whenRemovingTheLocalCopyFailsTooTheStaleCopyIsNeverServed() async throws {
        try await items.save(item(1))
        local.failNext(of: .save, with: offline)
        local.failNext(of: .delete, with: offline)
        let error = await expectRepositoryError(.partiallyApplied) { try await items.save(item(1, 1)) }
        #expect(error?.description.contains("still holds the old copy") == true)
        #expect(try await localStore.fetch(id: 1) == item(1))
        remoteFaults.failNext(of: .fetch, with: offline)
        await expectRepositoryError(.unavailable) { _ = try await items.fetch(id: 1) }
        #expect(try await items.reading(.localFirst).fetch(id: 1) == item(1, 1), "local-first skips it too")
        #expect(try await localStore.fetch(id: 1) == item(1, 1), "and that remote read repaired it")
    }

    @Test func aLocalDeleteFailureAfterTheRemoteDeleteThrowsAndTheCopyIsNeverServed() async throws {
        try await items.save(item(1))
        local.failNext(of: .delete, with: offline)
        await expectRepositoryError(.partiallyApplied) { try await items.delete(id: 1) }
        #expect(try await remoteStore.fetch(id: 1) == nil)
        remoteFaults.failNext(of: .fetch, with: offline)
        await expectRepositoryError(.unavailable) { _ = try await items.fetch(id: 1) }
    }

    // MARK: Read policies

    @Test func localFirstAnswersFromTheLocalStoreAndReadsTheRemoteOnAMiss() async throws {
        try await localStore.save(item(1))
        try await remoteStore.save(contentsOf: [item(1, 1), item(2)])
        let localFirst = items.reading(.localFirst)
        #expect(try await localFirst.fetch(id: 1) == item(1))
        #expect(remote.calls.isEmpty)
        #expect(try await localFirst.fetch(id: 2) == item(2))
        #expect(try await localStore.fetch(id: 2) == item(2))
        #expect(remote.operations == [.fetch])
    }

    @Test func localOnlyNeverReadsTheRemote() async throws {
        try await localStore.save(item(1))
        let offlineMode = items.reading(.localOnly)
        #expect(try await offlineMode.fetch(id: 1) == item(1))
        #expect(try await offlineMode.fetch(id: 2) == nil)
        #expect(try await offlineMode.fetchAll() == [item(1)])
        #expect(try await offlineMode.count() == 1)
        #expect(remote.calls.isEmpty)
    }

    @Test func remoteOnlyNeverFallsBackButStillMirrors() async throws {
        try await localStore.save(item(1))
        let remoteOnly = items.reading(.remoteOnly)
        remoteFaults.failNext(of: .fetch, with: offline)
        await expectRepositoryError(.unavailable) { _ = try await remoteOnly.fetch(id: 1) }
        try await remoteStore.save(item(2))
        #expect(try await remoteOnly.fetch(id: 2) == item(2))
        #expect(try await localStore.fetch(id: 2) == item(2))
    }

    // MARK: Streams

    @Test func theStreamYieldsTheLocalValueThenTheRemoteOneWithOriginAndAge() async throws {
        try await remoteStore.save(item(1))
        _ = try await items.fetch(id: 1)  // mirrored now
        await clock.advance(by: .seconds(30))
        try await remoteStore.save(item(1, 1))
        var values: [Sourced<Item?>] = []
        for try await value in items.values(id: 1) { values.append(value) }
        #expect(
            values == [
                Sourced(item(1), origin: .local, age: .seconds(30)),
                Sourced(item(1, 1), origin: .remote, age: .zero),
            ])
        #expect(try await localStore.fetch(id: 1) == item(1, 1))
    }

    @Test func aLocalValueThisProcessDidNotRefreshHasNoAge() async throws {
        try await localStore.save(item(1))
        try await remoteStore.save(item(1, 1))
        var values: [Sourced<[Item]>] = []
        for try await value in items.valuesAll() { values.append(value) }
        #expect(
            values == [
                Sourced([item(1)], origin: .local, age: nil),
                Sourced([item(1, 1)], origin: .remote, age: .zero),
            ])
        await clock.advance(by: .seconds(5))
        var again: [Sourced<[Item]>] = []
        for try await value in items.valuesAll() { again.append(value) }
        #expect(again.first?.age == .seconds(5))
    }

    @Test func whenTheRemoteFailsTheStreamEndsWithItsErrorAfterTheLocalValue() async throws {
        try await localStore.save(item(1))
        remoteFaults.failNext(of: .fetch, with: offline)
        var values: [Sourced<Item?>] = []
        await expectRepositoryError(.unavailable) {
            for try await value in items.values(id: 1) { values.append(value) }
        }
        #expect(values == [Sourced(item(1), origin: .local, age: nil)])
    }

    @Test func cancellingTheConsumerEndsTheStreamAndCancelsTheRemoteCall() async throws {
        let latencyClock = ManualClock()
        let remoteSpy = SpyRepository(InMemoryRepository<Item>([item(1, 1)]))
        let slowRemote = FaultInjectingRepository(remoteSpy, clock: latencyClock)
        slowRemote.addLatency(.seconds(10), to: [.fetch])
        let items = slowRemote.fallback(to: InMemoryRepository<Item>([item(1)]))
        let seen = Shared<[Sourced<Item?>]>([])
        let consumer = Task {
            for try await value in items.values(id: 1) { seen.update { $0.append(value) } }
        }
        await latencyClock.waitForSleepers(count: 1)
        #expect(await eventually { seen.value.count == 1 })
        consumer.cancel()
        _ = await consumer.result
        #expect(await eventually { latencyClock.sleeperCount == 0 }, "the remote call was cancelled")
        #expect(remoteSpy.calls.isEmpty)
        #expect(seen.value == [Sourced(item(1), origin: .local, age: nil)])
    }

    @Test func streamsFollowTheReadPolicy() async throws {
        try await localStore.save(item(1))
        try await remoteStore.save(item(1, 1))
        var local: [Sourced<Item?>] = []
        for try await value in items.reading(.localOnly).values(id: 1) { local.append(value) }
        #expect(local == [Sourced(item(1), origin: .local, age: nil)])
        var remote: [Sourced<Item?>] = []
        for try await value in items.reading(.remoteOnly).values(id: 2) { remote.append(value) }
        #expect(remote == [Sourced(nil, origin: .remote, age: .zero)])
    }
}
