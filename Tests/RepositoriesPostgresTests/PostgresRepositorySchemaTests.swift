import Foundation
import Repositories
import RepositoriesPostgres
import RepositoriesTestSupport
import RepositoriesTesting
import Testing

/// The table's shape, IDs, and how the server's refusals reach the caller.
@Suite struct PostgresRepositorySchemaTests {
    @Test func tableOfAnotherShapeIsRejectedAndLeftAsItWas() async throws {
        let server = try await PostgresTestServer.shared()
        let table = PostgresStores.tableName("shape")
        try await server.psql(
            "CREATE TABLE \"\(table)\" (id integer PRIMARY KEY, data jsonb); INSERT INTO \"\(table)\" VALUES (1, '{}')"
        )
        let columns =
            "SELECT string_agg(column_name || ' ' || data_type, ', ' ORDER BY ordinal_position) FROM information_schema.columns WHERE table_name = '\(table)'"
        let before = try await server.psql(columns)
        let error = try await #require(throws: RepositoryError.self) {
            _ = try await PostgresStores.make(ConformanceEntity.self, table: table)
        }
        #expect(error.code == .rejected)
        #expect(error.description.contains("exists with another shape"), "\(error)")
        #expect(try await server.psql(columns) == before)
        #expect(try await server.psql("SELECT count(*) FROM \"\(table)\"") == "1")
    }

    /// Instances of several machines starting together over a new table: `IF NOT EXISTS`
    /// alone lets two sessions create one index at once, and the later fails on the
    /// catalog's unique key; the advisory lock makes every open succeed.
    @Test func manyInstancesOpeningOneNewTableAtOnceAllSucceed() async throws {
        for _ in 0..<5 {
            let table = PostgresStores.tableName("together")
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<12 {
                    group.addTask {
                        let store = try await PostgresStores.make(
                            ConformanceEntity.self, table: table, poolSize: 1)
                        await store.close()
                    }
                }
                try await group.waitForAll()
            }
            try await PostgresTestServer.shared().psql("DROP TABLE IF EXISTS \"\(table)\"")
        }
    }

    @Test func wrongPasswordIsRejectedWithTheServersMessage() async throws {
        let server = try await PostgresTestServer.shared()
        let error = try await #require(throws: RepositoryError.self) {
            _ = try await PostgresRepository<ConformanceEntity>(
                connectionString:
                    "host=127.0.0.1 port=\(server.port) dbname=postgres user=\(server.user) password=wrong")
        }
        #expect(error.code == .rejected)
        let postgres = error.underlying as? PostgresError
        #expect(postgres?.message.contains("password authentication failed") == true, "\(error)")
    }

    @Test func refusedConnectionIsUnavailable() async throws {
        let error = try await #require(throws: RepositoryError.self) {
            _ = try await PostgresRepository<ConformanceEntity>(
                connectionString: "postgresql://nobody@127.0.0.1:1/postgres?connect_timeout=2")
        }
        #expect(error.code == .unavailable, "\(error)")
        #expect(error.description.contains("Connection refused"), "\(error)")
    }

    @Test func aConstraintAddedByHandIsAConflictKeepingTheSQLSTATE() async throws {
        let server = try await PostgresTestServer.shared()
        let store = try await PostgresStores.make(ConformanceEntity.self)
        try await server.psql(
            "ALTER TABLE \"\(store.tableName)\" ADD CONSTRAINT few_versions CHECK (version < 3)")
        try await store.save(.makeWithoutNUL(index: 1, revision: 1))
        try await store.save(.makeWithoutNUL(index: 1, revision: 2))
        let error = try await #require(throws: RepositoryError.self) {
            try await store.save(.makeWithoutNUL(index: 1, revision: 3))
        }
        #expect(error.code == .conflict)
        #expect((error.underlying as? PostgresError)?.sqlState == "23514")
        #expect(try await store.fetch(id: 1)?.revision == 2)
        await store.close()
    }

    @Test func equalStringIDsAreOneRowUnderTheirNFCSpelling() async throws {
        let server = try await PostgresTestServer.shared()
        let store = try await PostgresStores.make(Note.self)
        var note = Note.make(index: 0, revision: 0)
        note.id = "cafe\u{301}"
        try await store.save(note)
        note.id = "caf\u{E9}"
        note.text = "second"
        try await store.save(note)
        #expect(try await store.count() == 1)
        #expect(try await store.fetch(id: "cafe\u{301}")?.text == "second")
        #expect(
            try await server.psql("SELECT encode(convert_to(id, 'UTF8'), 'hex') FROM \"\(store.tableName)\"")
                == "636166c3a9")
        try await store.delete(ids: ["cafe\u{301}"])
        #expect(try await store.fetchAll().isEmpty)
        await store.close()
    }

    @Test func theTableHasTheDocumentedShape() async throws {
        let server = try await PostgresTestServer.shared()
        let store = try await PostgresStores.make(ConformanceEntity.self)
        let columns = try await server.psql(
            "SELECT string_agg(column_name || ' ' || data_type, ', ' ORDER BY ordinal_position) FROM information_schema.columns WHERE table_name = '\(store.tableName)'"
        )
        // The entity's declared fields follow the repository's own columns, typed.
        #expect(
            columns
                == "seq bigint, id bigint, body jsonb, version bigint, schema_version integer, title text, "
                + "revision bigint, rank bigint, updated_at timestamp with time zone, note text, "
                + "score double precision, fields_version bigint, fields_declaration bigint, fields_behind boolean"
        )
        try await store.save(.makeWithoutNUL(index: 5, revision: 0))
        try await store.save(.makeWithoutNUL(index: 5, revision: 1))
        #expect(try await server.psql("SELECT version FROM \"\(store.tableName)\" WHERE id = 5") == "2")
        await store.close()
    }

    @Test func cancellingATaskCancelsItsStatementOnTheServer() async throws {
        let server = try await PostgresTestServer.shared()
        let application = PostgresStores.tableName("cancel")
        let table = PostgresStores.tableName()
        let store = try await PostgresStores.make(
            ConformanceEntity.self, table: table, poolSize: 1, applicationName: application)
        let holder = try server.psqlInBackground(
            "BEGIN; LOCK TABLE \"\(table)\" IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(60)")
        defer { holder.terminate() }
        let lockHeld =
            "SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE c.relname = '\(table)' AND l.mode = 'AccessExclusiveLock' AND l.granted"
        while try await server.psql(lockHeld) == "0" {
            try await Task.sleep(for: .milliseconds(20))
        }
        let blocked = Task { try await store.fetchAll() }
        let waiting =
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = '\(application)' AND state = 'active'"
        while try await server.psql(waiting) == "0" { try await Task.sleep(for: .milliseconds(20)) }
        blocked.cancel()
        await #expect(throws: CancellationError.self) { _ = try await blocked.value }
        // Causal, not timed: the call ended while the lock it waited for was still held, so
        // the server's statement was cancelled rather than waited out.
        #expect(try await server.psql(lockHeld) == "1", "the call ended only when the lock was released")
        #expect(try await server.psql(waiting) == "0", "the statement still runs on the server")
        // The holder's backend sleeps on until it is told to go; psql's exit alone would not
        // end it before the sleep does.
        try await server.psql(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(60)%' AND pid <> pg_backend_pid()"
        )
        await holder.waitUntilExitOffThePool()
        try await store.save(.makeWithoutNUL(index: 1, revision: 0))
        #expect(try await store.count() == 1)
        await store.close()
    }
}
