import Repositories
import RepositoriesTesting
import Testing

@Suite struct InstrumentedRepositoryTests {
    @Test func conforms() async throws {
        try await RepositoryConformance(makeRepository: {
            InMemoryRepository<Item>().instrumented { _ in }
        }).run()
    }

    @Test func eachOperationIsReportedWithItsDurationAndOutcome() async throws {
        let clock = ManualClock()
        let base = FaultInjectingRepository(InMemoryRepository<Item>(), clock: clock)
        base.addLatency(.seconds(2), to: [.save])
        let events = Shared<[RepositoryEvent]>([])
        let items = base.instrumented(label: "items", clock: clock) { event in
            events.update { $0.append(event) }
        }

        let save = Task { try await items.save(item(1)) }
        await clock.waitForSleepers(count: 1)
        await clock.advance(by: .seconds(2))
        try await save.value
        #expect(try await items.fetch(id: 1) == item(1))

        #expect(events.value.map(\.operation) == [.save, .fetch])
        #expect(events.value.map(\.duration) == [.seconds(2), .zero])
        #expect(events.value.allSatisfy { $0.outcome.isSuccess && $0.label == "items" })
        #expect(events.value[0].description == "items save(_:) succeeded in 2.0 seconds")
    }

    @Test func aFailureIsReportedWithItsErrorAndStillThrown() async throws {
        let base = FaultInjectingRepository(InMemoryRepository<Item>())
        base.failNext(of: .fetchAll, with: offline)
        let events = Shared<[RepositoryEvent]>([])
        let items = base.instrumented { event in events.update { $0.append(event) } }
        await expectRepositoryError(.unavailable) { _ = try await items.fetchAll() }
        guard case .failure(let error) = events.value.first?.outcome else {
            Issue.record("expected a failure event, got \(events.value)")
            return
        }
        #expect((error as? RepositoryError)?.code == .unavailable)
        #expect(events.value.first?.label == "ConformanceEntity")
    }
}
