import Foundation
import Repositories
import RepositoriesPostgres
import RepositoriesTestSupport
import Testing

/// Declaring fields on a table of rows is a migration a kill cannot leave half done: a child
/// process (`RepositoriesCrashFixture` in its `postgres-open-indexed` mode) opens a
/// 3,000-row table as an entity that declares two fields and is killed (SIGKILL) at a random
/// moment of the open, 20 times.
///
/// After each kill, once the server has ended the child's session: the columns are absent, or
/// present and filled in every row; an open that returned had added them; an open in this
/// process answers a field query as `Query.apply` does, with nothing new in the feed. The
/// columns are then dropped with SQL, so the next round fills them again.
@Suite struct PostgresFieldColumnCrashTests {
    static let rows = 3_000

    @Test func aKillDuringTheFillLeavesNoColumnOrEveryRowFilled() async throws {
        let server = try await PostgresTestServer.shared()
        let table = PostgresStores.tableName("fill")
        let options = PostgresOptions(tableName: table)
        var cursor = try await seed(table)
        let reference = (0..<Self.rows).map(FixtureEntity.make).map(IndexedFixtureEntity.init)
        let query = Query<IndexedFixtureEntity>().where(\.blobLength >= 1_400).sorted(by: \.text).limit(50)
        let application = "fill_\(UUID().uuidString.prefix(8).lowercased())"

        // How long an open that fills takes, measured here once; the kills move towards the
        // moment the columns commit, as the SQLite crash test's do.
        let clock = ContinuousClock()
        let start = clock.now
        try await PostgresRepository<IndexedFixtureEntity>(
            connectionString: server.connectionString, options: options
        ).close()
        let measured = (clock.now - start) / .seconds(1)
        var delay = measured
        try await dropFieldColumns(table)

        var random = SeededRandomNumberGenerator(seed: 2_727)
        var outcomes: [String: Int] = [:]
        for round in 0..<ChildProcess.killCount {
            if round > 0, round % 100 == 0 {
                // Dropped columns still count towards PostgreSQL's 1,600 a table: start over.
                try await PostgresStores.drop(table)
                cursor = try await seed(table)
            }
            let child = try ChildProcess([
                "postgres-open-indexed", server.connectionString + " application_name=\(application)", table,
            ])
            _ = try await child.waitForLine("opening")
            try await Task.sleep(for: .seconds(delay * Double.random(in: 0.5...1.5, using: &random)))
            let lines = await child.kill()
            // A child that ended before the kill must have opened and closed; one that failed
            // printed why.
            guard child.process.terminationReason == .uncaughtSignal || lines.contains("closed") else {
                Issue.record("round \(round): the child failed: \(lines)")
                return
            }
            let opened = lines.contains("opened")
            try await waitUntilGone(application)

            let columns = try await server.psql(
                "SELECT coalesce(string_agg(attname, ',' ORDER BY attnum), '') FROM pg_attribute WHERE attrelid = '\"\(table)\"'::regclass AND attname IN ('text', 'blob_length') AND NOT attisdropped"
            )
            #expect(columns == "" || columns == "text,blob_length", "round \(round): \(columns)")
            if !columns.isEmpty {
                let behind = try await server.psql(
                    "SELECT count(*) FROM \"\(table)\" WHERE fields_behind OR fields_declaration IS NULL OR text IS NULL OR blob_length IS NULL"
                )
                #expect(behind == "0", "round \(round): columns that are there are filled in every row")
            }
            if opened { #expect(!columns.isEmpty, "round \(round): an open that returned added the columns") }
            outcomes[columns.isEmpty ? "not added" : "added", default: 0] += 1
            delay = min(delay * (columns.isEmpty ? 1.5 : 0.7), measured * 4)

            let reopened = try await PostgresRepository<IndexedFixtureEntity>(
                connectionString: server.connectionString, options: options)
            #expect(
                try await reopened.fetch(query).map(\.id) == query.apply(to: reference).map(\.id),
                "round \(round)")
            #expect(try await reopened.changes(since: cursor, limit: 10).saved.isEmpty, "round \(round)")
            await reopened.close()
            try await dropFieldColumns(table)
        }
        print("PostgreSQL field column fill, kills by outcome: \(outcomes)")
        withKnownIssue("the kills did not straddle the fill on a busy machine", isIntermittent: true) {
            #expect(outcomes.count == 2, "every kill landed on one side of the fill: \(outcomes)")
        }
        try await PostgresStores.drop(table)
    }

    /// Makes `table` hold 3,000 rows of ``FixtureEntity``, which declares no fields; returns
    /// the cursor after them.
    private func seed(_ table: String) async throws -> SyncCursor? {
        let plain = try await PostgresRepository<FixtureEntity>(
            connectionString: try await PostgresTestServer.shared().connectionString,
            options: PostgresOptions(tableName: table))
        try await plain.save(contentsOf: (0..<Self.rows).map(FixtureEntity.make))
        let cursor = try await plain.changes(since: nil, limit: Self.rows).next
        await plain.close()
        return cursor
    }

    /// Drops the columns the fields and their stamps keep, as a table before them had.
    private func dropFieldColumns(_ table: String) async throws {
        try await PostgresTestServer.shared().psql(
            """
            ALTER TABLE "\(table)" DROP COLUMN IF EXISTS text, DROP COLUMN IF EXISTS blob_length,
                DROP COLUMN IF EXISTS fields_behind, DROP COLUMN IF EXISTS fields_version,
                DROP COLUMN IF EXISTS fields_declaration
            """)
    }

    /// Waits until the server has ended every session of `application`: a killed client's
    /// transaction is rolled back once its backend notices the closed socket.
    private func waitUntilGone(_ application: String) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while try await PostgresTestServer.shared().psql(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = '\(application)'") != "0"
        {
            guard ContinuousClock.now < deadline else {
                Issue.record("the killed child's sessions did not end within 30 s")
                return
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
