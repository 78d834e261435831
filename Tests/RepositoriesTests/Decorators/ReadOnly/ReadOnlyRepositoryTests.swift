import Repositories
import RepositoriesTesting
import Testing

@Suite struct ReadOnlyRepositoryTests {
    @Test func readsPassThroughUnderEveryLaw() async throws {
        // A read-only view cannot take the suite's writes, so they go to the store beneath
        // while every read goes through the view: this proves the reads are faithful.
        try await RepositoryConformance(makeRepository: {
            let store = InMemoryRepository<Item>()
            let view = store.readOnly()
            return AnyRepository(
                fetch: { try await view.fetch(id: $0) },
                fetchAll: { try await view.fetchAll() },
                save: { try await store.save($0) },
                saveContentsOf: { try await store.save(contentsOf: $0) },
                delete: { try await store.delete(id: $0) },
                deleteAll: { try await store.deleteAll() },
                fetchIDs: { try await view.fetch(ids: $0) },
                fetchQuery: { try await view.fetch($0) },
                count: { try await view.count() },
                deleteIDs: { try await store.delete(ids: $0) })
        }).run()
    }

    @Test func everyWriteIsRejectedAndNothingReachesTheBase() async throws {
        let spy = SpyRepository(InMemoryRepository<Item>([item(1)]))
        let view = spy.readOnly()
        await expectRepositoryError(.rejected) { try await view.save(item(2)) }
        await expectRepositoryError(.rejected) { try await view.save(contentsOf: [item(3)]) }
        await expectRepositoryError(.rejected) { try await view.delete(id: 1) }
        await expectRepositoryError(.rejected) { try await view.delete(ids: [1]) }
        await expectRepositoryError(.rejected) { try await view.deleteAll() }
        #expect(spy.calls.isEmpty)
        #expect(try await view.fetchAll() == [item(1)])
    }

    @Test func theRejectionSaysTheRepositoryIsReadOnly() async throws {
        let error = await expectRepositoryError(.rejected) {
            try await InMemoryRepository<Item>().readOnly().save(item(1))
        }
        #expect(error?.description.contains("read-only") == true)
    }
}
