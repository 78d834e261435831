import Repositories
import RepositoriesTestSupport
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
    /// Each stack is built in a real child process, which must stop before it can go on.
    @Test(arguments: ["writeThrough", "fallback", "wrapped"])
    func anAPIIsNeverTheCopyOfATwoTierStack(_ stack: String) async throws {
        let child = try ChildProcess(["copy-of-record", "-", stack])
        let printed = await child.finish()
        #expect(!printed.contains("built"), "the \(stack) stack was built over a system of record")
        #expect(child.process.terminationReason == .uncaughtSignal, "it stopped at the precondition")
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
