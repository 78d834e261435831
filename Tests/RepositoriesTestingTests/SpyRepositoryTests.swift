import Repositories
import RepositoriesTesting
import Testing

@Suite struct SpyRepositoryTests {
    typealias Entity = ConformanceEntity

    @Test func passesTheConformanceSuite() async throws {
        try await RepositoryConformance(makeRepository: { SpyRepository(InMemoryRepository<Entity>()) }).run()
    }

    @Test func recordsEachCallWithItsArgumentsInOrder() async throws {
        let spy = SpyRepository(InMemoryRepository<Entity>())
        try await spy.save(.make(index: 1, revision: 0))
        _ = try await spy.fetch(id: 1)
        try await spy.delete(ids: [1, 2])
        #expect(spy.operations == [.save, .fetch, .deleteIDs])
        #expect(spy.calls[0].entities == [.make(index: 1, revision: 0)])
        #expect(spy.calls[1].ids == [1])
        #expect(spy.calls(to: .deleteIDs).first?.ids == [1, 2])
        spy.reset()
        #expect(spy.calls.isEmpty)
    }

    @Test func recordsTheErrorOfACallThatThrew() async throws {
        let faulty = FaultInjectingRepository(InMemoryRepository<Entity>())
        faulty.failNext(of: .fetchAll, with: RepositoryError.unavailable("offline"))
        let spy = SpyRepository(faulty)
        await #expect(throws: RepositoryError.self) { try await spy.fetchAll() }
        #expect((spy.calls[0].error as? RepositoryError)?.code == .unavailable)
    }
}
