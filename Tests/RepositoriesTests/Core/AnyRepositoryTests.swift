import Repositories
import RepositoriesTesting
import XCTest

/// `AnyRepository` under XCTest, which also shows the conformance suite reporting there.
final class AnyRepositoryTests: XCTestCase {
    typealias Entity = ConformanceEntity

    func testWrappingARepositoryConforms() async {
        await RepositoryConformance(makeRepository: { AnyRepository(InMemoryRepository<Entity>()) })
            .expectConformance()
    }

    func testClosuresWithDefaultCustomizationPointsConform() async {
        // Only the six required closures: fetch(ids:), queries, count and delete(ids:) use
        // the protocol's default implementations.
        await RepositoryConformance(makeRepository: {
            let store = InMemoryRepository<Entity>()
            return AnyRepository(
                fetch: { try await store.fetch(id: $0) },
                fetchAll: { try await store.fetchAll() },
                save: { try await store.save($0) },
                saveContentsOf: { try await store.save(contentsOf: $0) },
                delete: { try await store.delete(id: $0) },
                deleteAll: { try await store.deleteAll() })
        }).expectConformance()
    }

    func testWrappingAnAnyRepositoryDoesNotNestIt() async throws {
        var inner = AnyRepository(InMemoryRepository<Entity>())
        inner.onCount = { 42 }
        let outer = AnyRepository(inner)
        let count = try await outer.count()
        XCTAssertEqual(count, 42)
    }

    func testAnEndpointCanBeReplacedLikeADependencyClient() async throws {
        var repository = AnyRepository(InMemoryRepository<Entity>())
        repository.onSave = { _ in throw RepositoryError.unavailable("offline") }
        do {
            try await repository.save(.make(index: 1, revision: 0))
            XCTFail("save should have thrown")
        } catch let error as RepositoryError {
            XCTAssertEqual(error.code, .unavailable)
        }
        let count = try await repository.count()
        XCTAssertEqual(count, 0)
    }
}
