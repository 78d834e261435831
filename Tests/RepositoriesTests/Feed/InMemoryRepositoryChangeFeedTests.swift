import Repositories
import RepositoriesTestSupport
import RepositoriesTesting
import Testing

/// InMemoryRepository's change feed keeps every law of ChangeFeedConformance.
@Suite struct InMemoryRepositoryChangeFeedTests {
    typealias Store = InMemoryRepository<ConformanceEntity>

    /// The store rebuilt with what it held, as after a process restart: its old cursors
    /// must expire, never answer with changes missing.
    static func rebuilt(_ store: Store) async throws -> Store {
        InMemoryRepository(try await store.fetchAll())
    }

    @Test(arguments: [0, 1])
    func feedConforms(keepingLastDeletions kept: Int) async throws {
        try await ChangeFeedConformance(
            options: ChangeFeedConformanceOptions(
                expireCursors: { $0.forgetDeletions(keepingLast: kept) }, reopen: Self.rebuilt),
            makeRepository: { Store() }
        ).run()
    }

    @Test func feedConformsWithACapacityItNeverReaches() async throws {
        try await ChangeFeedConformance(
            options: ChangeFeedConformanceOptions(expireCursors: { $0.forgetDeletions() }),
            makeRepository: { Store(capacity: 100_000) }
        ).run()
    }

    @Test func feedConformsWithStringIDs() async throws {
        try await ChangeFeedConformance(
            options: ChangeFeedConformanceOptions(expireCursors: { $0.forgetDeletions() }),
            makeRepository: { InMemoryRepository<Note>() }, makeEntity: Note.make
        ).run()
    }
}
