import Repositories
import RepositoriesTestSupport
import RepositoriesTesting
import Testing

@Suite struct InMemoryRepositoryTests {
    typealias Entity = ConformanceEntity
    let suite = RepositoryConformance(makeRepository: { InMemoryRepository<ConformanceEntity>() })

    @Test func basics() async throws { try await suite.basics() }
    @Test func batches() async throws { try await suite.batches() }
    @Test func ordering() async throws { try await suite.ordering() }
    @Test func queries() async throws { try await suite.queries() }
    @Test func concurrency() async throws { try await suite.concurrency() }
    @Test func randomized() async throws { try await suite.randomized() }

    @Test func conformsWithStringAndUUIDIDs() async throws {
        try await RepositoryConformance(
            makeRepository: { InMemoryRepository<Note>() }, makeEntity: Note.make
        ).run()
        try await RepositoryConformance(
            makeRepository: { InMemoryRepository<Ticket>() }, makeEntity: Ticket.make
        ).run()
    }

    @Test func conformsWithACapacityItNeverReaches() async throws {
        try await RepositoryConformance(makeRepository: { InMemoryRepository<Entity>(capacity: 100_000) })
            .run()
    }

    @Test func initialEntitiesKeepTheirOrderAndTheLaterDuplicateWins() async throws {
        let store = InMemoryRepository<Entity>([
            .make(index: 2, revision: 0), .make(index: 1, revision: 0), .make(index: 2, revision: 1),
        ])
        #expect(try await store.fetchAll() == [.make(index: 2, revision: 1), .make(index: 1, revision: 0)])
    }

    @Test func orderSurvivesManyDeletesAndCompaction() async throws {
        let store = InMemoryRepository<Entity>()
        for index in 0..<1_000 { try await store.save(.make(index: index, revision: 0)) }
        for index in stride(from: 0, to: 1_000, by: 3) { try await store.delete(id: index) }
        try await store.save(.make(index: 1, revision: 1))
        try await store.save(.make(index: 0, revision: 0))
        let expected =
            (0..<1_000).filter { $0 % 3 != 0 }.map { Entity.make(index: $0, revision: $0 == 1 ? 1 : 0) }
            + [.make(index: 0, revision: 0)]
        #expect(try await store.fetchAll() == expected)
        #expect(try await store.count() == expected.count)
    }

    @Test func pastCapacityTheLeastRecentlyUsedIsEvicted() async throws {
        let store = InMemoryRepository<Entity>(capacity: 3)
        for index in 1...3 { try await store.save(.make(index: index, revision: 0)) }
        _ = try await store.fetch(id: 1)  // 2 is now the least recently used
        try await store.save(.make(index: 4, revision: 0))
        #expect(try await store.fetchAll().map(\.id) == [1, 3, 4])
        try await store.save(.make(index: 3, revision: 1))  // a save is a use: 1 is least recent
        _ = try await store.fetch(ids: [4])
        try await store.save(.make(index: 5, revision: 0))
        #expect(try await store.fetchAll().map(\.id) == [3, 4, 5])
        #expect(try await store.count() == 3)
    }

    @Test func aBatchLargerThanTheCapacityKeepsItsLastEntities() async throws {
        let store = InMemoryRepository<Entity>(capacity: 2)
        try await store.save(contentsOf: (1...5).map { .make(index: $0, revision: 0) })
        #expect(try await store.fetchAll().map(\.id) == [4, 5])
    }

    @Test func evictionStaysCorrectThroughCompaction() async throws {
        let store = InMemoryRepository<Entity>(capacity: 50)
        let model = LeastRecentlyUsedModel(capacity: 50)
        var random = SeededRandomNumberGenerator(seed: 99)
        for _ in 0..<20_000 {
            let index = Int.random(in: 0..<120, using: &random)
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<5:
                try await store.save(.make(index: index, revision: 0))
                model.save(index)
            case 5..<8:
                let found = try await store.fetch(id: index)
                #expect((found != nil) == model.fetch(index))
            default:
                try await store.delete(id: index)
                model.delete(index)
            }
        }
        #expect(try await store.fetchAll().map(\.id) == model.stored)
    }

    @Test func manyTasksAtOnceWithACapacityKeepTheLimit() async throws {
        let store = InMemoryRepository<Entity>(capacity: 64)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for step in 0..<2_000 {
                        let index = (task * 31 + step) % 200
                        if step % 3 == 0 { _ = try await store.fetch(id: index) }
                        try await store.save(.make(index: index, revision: 0))
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await store.count() == 64)
        #expect(try await store.fetchAll().count == 64)
    }
}

/// A plain reference for least-recently-used eviction, slow and obviously right.
final class LeastRecentlyUsedModel {
    let capacity: Int
    /// Stored indexes in insertion order.
    private(set) var stored: [Int] = []
    /// Indexes from least to most recently used.
    private var recency: [Int] = []

    init(capacity: Int) { self.capacity = capacity }

    func save(_ index: Int) {
        if !stored.contains(index) { stored.append(index) }
        use(index)
        if stored.count > capacity, let victim = recency.first {
            recency.removeFirst()
            stored.removeAll { $0 == victim }
        }
    }

    func fetch(_ index: Int) -> Bool {
        guard stored.contains(index) else { return false }
        use(index)
        return true
    }

    func delete(_ index: Int) {
        stored.removeAll { $0 == index }
        recency.removeAll { $0 == index }
    }

    private func use(_ index: Int) {
        recency.removeAll { $0 == index }
        recency.append(index)
    }
}
