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

    @Test func aQueryIsReportedSplitByWhereEachPartRuns() async throws {
        let events = Shared<[RepositoryEvent]>([])
        let store = InMemoryRepository((0..<6).map { ConformanceEntity.make(index: $0, revision: 0) })
        let entities = store.instrumented(label: "entities") { event in events.update { $0.append(event) } }
        let mixed = Query<ConformanceEntity>().where(\.rank >= 2).filter { $0.id % 2 == 0 }
            .sorted(by: \.rank, .descending).limit(3)
        let pushed = Query<ConformanceEntity>().where(\.rank >= 2).sorted(by: \.rank).offset(1).limit(2)
        let computed = Query<ConformanceEntity>().sorted(by: \.rank).sorted(by: SortKey { $0.id }).limit(2)

        #expect(try await entities.fetch(mixed) == store.fetch(mixed))
        _ = try await entities.count(pushed)
        _ = try await entities.fetch(computed)
        _ = try await entities.fetch(Query())

        #expect(events.value.map(\.operation) == [.fetchQuery, .countQuery, .fetchQuery, .fetchQuery])
        #expect(
            events.value.map(\.query) == [
                "store: where rank >= 2, sorted by rank descending; Swift: 1 filter, limit 3",
                "store: where rank >= 2, sorted by rank, offset 1, limit 2",
                "store: everything; Swift: sorted by rank, then a computed key, limit 2",
                "store: everything",
            ])
        #expect(
            events.value[1].description.hasPrefix(
                "entities count(_:) [store: where rank >= 2, sorted by rank"))
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
