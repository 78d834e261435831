import Foundation
import Repositories
import RepositoriesPostgres
import RepositoriesTestSupport
import RepositoriesTesting
import Testing

/// The server going away, connections killed under the repository, and what each leaves.
@Suite struct PostgresRepositoryFaultTests {
    @Test func stoppedServerIsUnavailableThenTheRepositoryRecoversWhenItReturns() async throws {
        // A server of its own: stopping the shared one would fail every other test.
        let server = try await PostgresTestServer.start()
        defer { server.stop() }
        let store = try await PostgresRepository<ConformanceEntity>(
            connectionString: server.connectionString,
            options: PostgresOptions(tableName: "fault", poolSize: 2))
        let feed = ChangeRecorder(store.changes())
        try await feed.waitUntilListening()
        try await store.save(contentsOf: (0..<10).map { .makeWithoutNUL(index: $0, revision: 0) })

        server.stop()
        for operation in ["save", "fetch", "count"] {
            let error = try await #require(throws: RepositoryError.self, "\(operation)") {
                switch operation {
                case "save": try await store.save(.makeWithoutNUL(index: 99, revision: 0))
                case "fetch": _ = try await store.fetch(id: 1)
                default: _ = try await store.count()
                }
            }
            #expect(error.code == .unavailable, "\(operation): \(error)")
            #expect(error.underlying is PostgresError, "\(operation): \(error)")
        }
        try await feed.wait(for: "connection lost") { $0.contains(.everything(.connectionLost)) }

        try await server.launch()
        try await store.save(.makeWithoutNUL(index: 10, revision: 0))
        #expect(try await store.fetchAll().map(\.id) == Array(0...10))
        try await feed.waitUntilListening(times: 2)
        await store.close()
    }

    @Test func terminatedConnectionsAreReplacedAndABatchIsNeverHalfWritten() async throws {
        let server = try await PostgresTestServer.shared()
        let application = PostgresStores.tableName("terminated")
        let store = try await PostgresRepository<ConformanceEntity>(
            connectionString: server.connectionString + " application_name=\(application)",
            options: PostgresOptions(tableName: PostgresStores.tableName(), poolSize: 2))
        let terminate =
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = '\(application)'"
        try await store.save(.makeWithoutNUL(index: 0, revision: 0))
        try await server.psql(terminate)
        // The next call meets the dead connection, and sends its statement again on a new one.
        #expect(try await store.fetch(id: 0)?.revision == 0)
        try await store.save(.makeWithoutNUL(index: 1, revision: 0))

        let batch = (2..<3_002).map { ConformanceEntity.makeWithoutNUL(index: $0, revision: 1) }
        for round in 0..<5 {
            try await store.delete(ids: batch.map(\.id))
            let saving = Task { try await store.save(contentsOf: batch) }
            try await Task.sleep(for: .milliseconds(5 * round))
            try await server.psql(terminate)
            let outcome = await saving.result
            let count = try await store.count()
            #expect(
                count == 2 || count == 2 + batch.count, "round \(round): \(count) rows: a half-written batch")
            if case .success = outcome {
                #expect(count == 2 + batch.count, "round \(round): returned, not stored")
            }
            if case .failure(let error) = outcome {
                #expect((error as? RepositoryError)?.code == .unavailable, "round \(round): \(error)")
            }
        }
        await store.close()
    }
}
