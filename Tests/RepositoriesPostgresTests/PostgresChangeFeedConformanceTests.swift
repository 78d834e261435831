import Foundation
import Repositories
import RepositoriesPostgres
import RepositoriesTestSupport
import RepositoriesTesting
import Testing

/// PostgresRepository's change feed keeps every law of ChangeFeedConformance, the same body
/// InMemoryRepository's and SQLiteRepository's keep. On a server of its own: a cursor is
/// refused once tombstones newer than its oldest running transaction are pruned, and the
/// shared server's other tests keep transactions running.
@Suite(.serialized) struct PostgresChangeFeedConformanceTests {
    @Test func feedConforms() async throws {
        let server = try await PostgresTestServer.start()
        defer { server.stop() }
        let connection = server.connectionString
        @Sendable func open(_ table: String) async throws -> PostgresRepository<ConformanceEntity> {
            try await PostgresRepository<ConformanceEntity>(
                connectionString: connection, options: PostgresOptions(tableName: table, poolSize: 4))
        }
        try await ChangeFeedConformance(
            options: ChangeFeedConformanceOptions(
                expireCursors: { store in _ = try await store.pruneTombstones(olderThan: .zero) },
                reopen: { store in
                    await store.close()
                    return try await open(store.tableName)
                },
                tearDown: { store in await store.close() },
                // Every write is a round trip and a commit here: 4 × 60 keeps the law's
                // interleavings without crowding the rest of the suite on a two-core machine.
                concurrentWriters: 4, writesPerWriter: 60),
            makeRepository: { try await open(PostgresStores.tableName("feed")) },
            makeEntity: ConformanceEntity.makeWithoutNUL
        ).run()
    }
}
