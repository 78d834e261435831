import Repositories
import RepositoriesTesting
import Testing

/// A web API stand-in: the system of record for its data.
private struct API: SystemOfRecord {
    let base = InMemoryRepository<Item>()
    func fetch(id: Int) async throws -> Item? { try await base.fetch(id: id) }
    func fetchAll() async throws -> [Item] { try await base.fetchAll() }
    func save(_ entity: Item) async throws { try await base.save(entity) }
    func save(contentsOf entities: [Item]) async throws { try await base.save(contentsOf: entities) }
    func delete(id: Int) async throws { try await base.delete(id: id) }
    func deleteAll() async throws { try await base.deleteAll() }
}

/// A system of record is never the copy a two-tier decorator rewrites and prunes: given one
/// as its second store, the decorator stops the program before any call can delete its data.
@Suite struct SystemOfRecordTests {
    @Test func anAPIIsNeverTheCacheOfWriteThrough() async {
        await #expect(processExitsWith: .failure) {
            _ = InMemoryRepository<Item>().writeThrough(to: API())
        }
    }

    @Test func anAPIIsNeverTheLocalStoreOfFallback() async {
        await #expect(processExitsWith: .failure) {
            _ = InMemoryRepository<Item>().fallback(to: API())
        }
    }

    @Test func anAPIBehindDecoratorsIsStillOne() async {
        await #expect(processExitsWith: .failure) {
            _ = InMemoryRepository<Item>().writeThrough(
                to: API().retrying(.default).timeout(.seconds(5)).observed())
        }
    }

    @Test func anAPIIsTheFirstStoreOfEither() async throws {
        let api = API()
        let local = InMemoryRepository<Item>()
        try await api.fallback(to: local).save(item(1))
        try await api.writeThrough(to: InMemoryRepository<Item>()).save(item(2))
        #expect(try await api.fetchAll() == [item(1), item(2)])
        #expect(try await local.fetchAll() == [item(1)])
    }
}
