import Foundation
import Repositories
import RepositoriesSQLite
import RepositoriesTestSupport
import RepositoriesTesting
import Testing

/// SQLiteRepository's change feed keeps every law of ChangeFeedConformance, the same body
/// InMemoryRepository's and PostgresRepository's keep: on a file, with tombstones pruned on
/// demand, and across a close and reopen.
@Suite struct SQLiteRepositoryChangeFeedConformanceTests {
    let scratch: TemporaryDirectory

    init() throws {
        scratch = try TemporaryDirectory()
    }

    /// The default retention (every tombstone kept); the suite forgets them on demand.
    static var options: SQLiteOptions { SQLiteOptions() }

    func suite<Entity: Codable & Equatable & Identifiable & Sendable>(
        _ makeEntity: @escaping @Sendable (Int, Int) -> Entity
    ) -> ChangeFeedConformance<SQLiteRepository<Entity>> where Entity.ID: Codable & Sendable {
        let directory = scratch.url
        return ChangeFeedConformance(
            options: ChangeFeedConformanceOptions(
                expireCursors: { store in _ = try await store.pruneTombstones(keeping: .newest(0)) },
                reopen: { store in
                    let url = try #require(store.fileURL, "the suite's stores are files")
                    try await store.close()
                    return try await SQLiteRepository<Entity>(fileURL: url, options: Self.options)
                },
                tearDown: { store in try await store.close() },
                // Every write is durable here: 4 × 60 keeps the law's interleavings without
                // crowding the rest of the suite on a two-core machine.
                concurrentWriters: 4, writesPerWriter: 60),
            makeRepository: {
                try await SQLiteRepository<Entity>(
                    fileURL: directory.appending(path: "feed-\(UUID().uuidString).sqlite"),
                    options: Self.options)
            },
            makeEntity: makeEntity)
    }

    @Test func feedConforms() async throws {
        try await suite(ConformanceEntity.make(index:revision:)).run()
    }

    @Test func feedConformsWithStringIDs() async throws {
        try await suite(Note.make).run()
    }
}
