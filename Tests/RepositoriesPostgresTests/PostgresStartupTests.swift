import Foundation
import Repositories
import RepositoriesPostgres
import RepositoriesTestSupport
import RepositoriesTesting
import Testing

/// What a service sees when it starts: a connection string libpq would misread is refused
/// before connecting, each failure says what happened once, with the server's own text, and
/// `startupWait` waits for a database that is still coming up.
@Suite struct PostgresStartupTests {
    /// Strings libpq would take as a database's name, or whose scheme it does not read:
    /// `rejected` (not `unavailable`, which `.retrying` would retry), without repeating the
    /// string, which may hold a password.
    @Test(arguments: [
        "", "   ", "postgressql://app:s3cret@127.0.0.1/app", "http://app:s3cret@db/app", "s3cret",
    ])
    func aConnectionStringLibpqWouldMisreadIsRefusedBeforeConnecting(_ string: String) async throws {
        let error = try await #require(throws: RepositoryError.self) {
            _ = try await PostgresRepository<ConformanceEntity>(connectionString: string)
        }
        #expect(error.code == .rejected, "\(error)")
        #expect(error.underlying == nil, "refused before libpq saw it: \(error)")
        #expect(error.recovery?.contains("postgres") == true, "\(error)")
        #expect(!error.description.contains("s3cret"), "\(error)")
    }

    @Test func aRefusedConnectionIsUnavailableAndSaysLibpqsTextOnceWithItsLines() async throws {
        let error = try await #require(throws: RepositoryError.self) {
            _ = try await PostgresRepository<ConformanceEntity>(
                connectionString: "postgresql://nobody@127.0.0.1:1/postgres?connect_timeout=2")
        }
        #expect(error.code == .unavailable, "\(error)")
        let text = error.description
        #expect(text.components(separatedBy: "Connection refused").count == 2, "once: \(text)")
        #expect(text.contains("\n"), "libpq's line breaks kept: \(text)")
        #expect(!text.contains(".."), "\(text)")
    }

    @Test func aWrongPasswordSaysTheServersTextOnce() async throws {
        let server = try await PostgresTestServer.shared()
        let error = try await #require(throws: RepositoryError.self) {
            _ = try await PostgresRepository<ConformanceEntity>(
                connectionString:
                    "host=127.0.0.1 port=\(server.port) dbname=postgres user=\(server.user) password=wrong",
                options: PostgresOptions(startupWait: .seconds(60)))
        }
        // Refused at once, though the options would wait a minute for a server starting.
        #expect(error.code == .rejected, "\(error)")
        #expect(
            error.description.components(separatedBy: "password authentication failed").count == 2,
            "once: \(error)")
    }

    @Test func aRowThatDoesNotDecodeIsNamedByItsID() async throws {
        let server = try await PostgresTestServer.shared()
        let store = try await PostgresStores.make(ConformanceEntity.self)
        try await store.save(.makeWithoutNUL(index: 1, revision: 0))
        try await server.psql(
            "UPDATE \"\(store.tableName)\" SET body = '{\"id\": 1}' WHERE id = 1")
        let error = try await #require(throws: RepositoryError.self) { _ = try await store.fetch(id: 1) }
        #expect(error.code == .decodingFailed)
        #expect(error.id == "1" && error.record == nil, "\(error)")
        #expect(error.description.contains("ID 1") && !error.description.contains("record"), "\(error)")
        await store.close()
    }

    /// A service started before its database: the initializer waits, and opens once the
    /// server is up; without a wait, or past it, `unavailable` says how long it waited.
    @Test func startupWaitOpensOnceTheServerIsUp() async throws {
        let server = try await PostgresTestServer.start()
        await offThePool { server.stop() }
        let opening = Task {
            try await PostgresRepository<ConformanceEntity>(
                connectionString: server.connectionString,
                options: PostgresOptions(tableName: "waited", startupWait: .seconds(120)))
        }
        let tooShort = try await #require(throws: RepositoryError.self) {
            _ = try await PostgresRepository<ConformanceEntity>(
                connectionString: server.connectionString,
                options: PostgresOptions(startupWait: .milliseconds(300)))
        }
        #expect(tooShort.code == .unavailable)
        #expect(tooShort.reason.contains("after waiting"), "\(tooShort)")
        try await server.launch()
        let store = try await opening.value
        try await store.save(.makeWithoutNUL(index: 1, revision: 0))
        #expect(try await store.count() == 1)
        await store.close()
        await offThePool { server.stop() }
    }

    @Test func cancellingTheTaskEndsTheWait() async throws {
        let opening = Task {
            try await PostgresRepository<ConformanceEntity>(
                connectionString: "postgresql://nobody@127.0.0.1:1/postgres?connect_timeout=2",
                options: PostgresOptions(startupWait: .seconds(600)))
        }
        try await Task.sleep(for: .milliseconds(300))
        opening.cancel()
        await #expect(throws: CancellationError.self) { _ = try await opening.value }
    }
}
