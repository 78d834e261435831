import Foundation
import Repositories
import RepositoriesPostgres
import RepositoriesTestSupport
import RepositoriesTesting
import Testing

/// `transaction { tx in … }`: everything written through `tx` commits together, or nothing
/// does, whatever ends the body: a throw, a failed statement (even one the body caught), a
/// cancellation, a lost connection.
@Suite struct PostgresTransactionTests {
    struct Card: Codable, Identifiable, Sendable, Equatable {
        var id: Int
        var title: String
    }

    @Test func writesCommitTogetherAndNoOneSeesThemBefore() async throws {
        let store = try await PostgresStores.make(Card.self)
        try await store.save(Card(id: 3, title: "old"))
        let seenMeanwhile = try await store.transaction { tx in
            try await tx.save(contentsOf: [Card(id: 1, title: "one"), Card(id: 2, title: "two")])
            try await tx.delete(id: 3)
            #expect(try await tx.count() == 2, "the transaction reads its own writes")
            return try await store.fetchAll().map(\.id)
        }
        #expect(seenMeanwhile == [3], "another connection saw nothing before the commit")
        #expect(try await store.fetchAll().map(\.id) == [1, 2])
        await store.close()
    }

    @Test func aThrowRollsEverythingBack() async throws {
        let store = try await PostgresStores.make(Card.self)
        struct Refused: Error {}
        await #expect(throws: Refused.self) {
            try await store.transaction { tx in
                try await tx.save(Card(id: 1, title: "one"))
                throw Refused()
            }
        }
        #expect(try await store.count() == 0)
        await store.close()
    }

    /// PostgreSQL rolls a transaction back at its first failed statement; a body that catches
    /// the error and goes on must not write the rest outside any transaction.
    @Test func aFailedStatementEndsTheTransactionEvenWhenTheBodyCatchesIt() async throws {
        let server = try await PostgresTestServer.shared()
        let store = try await PostgresStores.make(Card.self)
        try await store.save(Card(id: 2, title: "two"))
        try await server.psql("ALTER TABLE \"\(store.tableName)\" ADD CONSTRAINT once CHECK (version < 2)")
        let error = try await #require(throws: RepositoryError.self) {
            try await store.transaction { tx in
                try await tx.save(Card(id: 1, title: "one"))
                do { try await tx.save(Card(id: 2, title: "again")) } catch {}
                do { try await tx.save(Card(id: 3, title: "three")) } catch {}
            }
        }
        #expect(error.code == .conflict, "\(error)")
        #expect(try await store.fetchAll() == [Card(id: 2, title: "two")], "nothing of it was written")
        await store.close()
    }

    @Test func aCancelledTransactionWritesNothingAndFreesItsConnection() async throws {
        let store = try await PostgresStores.make(Card.self, poolSize: 1)
        let started = AsyncStream<Void>.makeStream()
        let running = Task {
            try await store.transaction { tx in
                try await tx.save(Card(id: 1, title: "one"))
                started.continuation.yield()
                try await Task.sleep(for: .seconds(60))
            }
        }
        var iterator = started.stream.makeAsyncIterator()
        await iterator.next()
        running.cancel()
        await #expect(throws: CancellationError.self) { try await running.value }
        #expect(try await store.count() == 0, "the one connection is free again, and nothing was written")
        await store.close()
    }

    @Test func aConnectionLostInsideIsUnavailableAndWritesNothing() async throws {
        let server = try await PostgresTestServer.shared()
        let application = PostgresStores.tableName("tx")
        let store = try await PostgresStores.make(Card.self, poolSize: 1, applicationName: application)
        let error = try await #require(throws: RepositoryError.self) {
            try await store.transaction { tx in
                try await tx.save(Card(id: 1, title: "one"))
                _ = try await server.psql(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '\(application)'"
                )
                try await tx.save(Card(id: 2, title: "two"))
            }
        }
        #expect(error.code == .unavailable, "\(error)")
        #expect(try await store.count() == 0)
        await store.close()
    }

    @Test func aTransactionUsedAfterItEndedIsClosed() async throws {
        let store = try await PostgresStores.make(Card.self)
        let kept = try await store.transaction { tx in tx }
        let error = try await #require(throws: RepositoryError.self) {
            try await kept.save(Card(id: 1, title: "late"))
        }
        #expect(error.code == .closed)
        #expect(try await store.count() == 0)
        await store.close()
    }
}
