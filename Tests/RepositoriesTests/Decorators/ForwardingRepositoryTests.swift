import Repositories
import RepositoriesTesting
import Testing

/// The decorators that wrap every call the same way pass each operation, customization
/// points included, to the base's own implementation, with its arguments and its answer.
@Suite struct ForwardingRepositoryTests {
    private typealias Spy = SpyRepository<InMemoryRepository<Item>>

    /// Calls every operation once through `decorated` and checks the spy beneath saw each,
    /// in order, and that each answer came back.
    private func expectEveryOperationForwarded<Decorated: Repository<Item, Int>>(
        _ decorate: (Spy) -> Decorated, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let spy = SpyRepository(InMemoryRepository<Item>())
        let repository = decorate(spy)

        try await repository.save(item(1))
        try await repository.save(contentsOf: [item(2), item(3)])
        #expect(try await repository.fetch(id: 1) == item(1), sourceLocation: sourceLocation)
        #expect(
            try await repository.fetchAll() == [item(1), item(2), item(3)], sourceLocation: sourceLocation)
        #expect(
            try await repository.fetch(ids: [3, 1]) == [item(3), item(1)], sourceLocation: sourceLocation)
        #expect(
            try await repository.fetch(Query<Item>().limit(1)) == [item(1)], sourceLocation: sourceLocation)
        #expect(try await repository.count() == 3, sourceLocation: sourceLocation)
        #expect(try await repository.count(Query<Item>().offset(1)) == 2, sourceLocation: sourceLocation)
        try await repository.delete(id: 1)
        try await repository.delete(ids: [2])
        #expect(try await repository.fetchAll() == [item(3)], sourceLocation: sourceLocation)
        try await repository.deleteAll()

        #expect(
            spy.operations == [
                .save, .saveContentsOf, .fetch, .fetchAll, .fetchIDs, .fetchQuery, .count, .countQuery,
                .delete,
                .deleteIDs,
                .fetchAll, .deleteAll,
            ], sourceLocation: sourceLocation)
        #expect(spy.calls(to: .fetchIDs).first?.ids == [3, 1], sourceLocation: sourceLocation)
        #expect(spy.calls(to: .deleteIDs).first?.ids == [2], sourceLocation: sourceLocation)
    }

    @Test func retryingForwardsEveryOperation() async throws {
        try await expectEveryOperationForwarded { $0.retrying(.default) }
    }

    @Test func timeoutForwardsEveryOperation() async throws {
        try await expectEveryOperationForwarded { $0.timeout(.seconds(60)) }
    }

    @Test func circuitBreakerForwardsEveryOperation() async throws {
        try await expectEveryOperationForwarded { $0.circuitBreaker(.default) }
    }

    @Test func instrumentedForwardsEveryOperationAndReportsEachUnderItsOwnName() async throws {
        let events = Shared<[RepositoryOperation]>([])
        try await expectEveryOperationForwarded { spy in
            spy.instrumented { event in events.update { $0.append(event.operation) } }
        }
        #expect(
            events.value == [
                .save, .saveContentsOf, .fetch, .fetchAll, .fetchIDs, .fetchQuery, .count, .countQuery,
                .delete,
                .deleteIDs,
                .fetchAll, .deleteAll,
            ])
    }

    @Test func timeoutNamesTheOperationThatTimedOut() async throws {
        let clock = ManualClock()
        let slow = FaultInjectingRepository(InMemoryRepository<Item>(), clock: clock)
        slow.addLatency(.seconds(10), to: [.fetchIDs])
        let items = slow.timeout(.seconds(1), clock: clock)
        let call = Task { try await items.fetch(ids: [1]) }
        await clock.waitForSleepers(count: 2)
        await clock.advance(by: .seconds(1))
        let error = await expectRepositoryError(.timedOut) { _ = try await call.value }
        #expect(error?.description.contains("fetch(ids:)") == true, "\(String(describing: error))")
        await clock.advance(by: .seconds(9))
    }
}
