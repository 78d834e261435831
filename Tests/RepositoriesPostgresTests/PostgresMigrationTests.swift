import Foundation
import Repositories
import RepositoriesPostgres
import RepositoriesTestSupport
import Synchronization
import Testing

/// Migrations over PostgreSQL: a rolling deploy where an instance of the old version keeps
/// running beside the new one never drops a field silently, and a process killed during an
/// upgrade leaves the old rows, upgraded once by the next open. The migration laws every
/// durable store keeps run in `PostgresRepositoryConformanceTests.migrations`.
@Suite struct PostgresMigrationTests {
    typealias V1 = StockItems.V1
    typealias V2 = StockItems.V2

    static func open<Entity: Codable & Identifiable & Sendable>(
        _ type: Entity.Type, _ table: String, migrations: Migrations<Entity> = Migrations()
    ) async throws -> PostgresRepository<Entity> where Entity.ID: Codable & Sendable {
        try await PostgresRepository<Entity>(
            connectionString: PostgresTestServer.shared().connectionString,
            options: PostgresOptions(tableName: table, poolSize: 2), migrations: migrations)
    }

    /// Expects `body` to throw `writtenByNewerVersion`, naming `id` when one is given.
    static func expectNewer(
        _ what: String, id: String? = nil, _ body: () async throws -> Void,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        do {
            try await body()
            Issue.record("\(what) succeeded over a row version 2 wrote", sourceLocation: sourceLocation)
        } catch let error as RepositoryError {
            #expect(error.code == .writtenByNewerVersion, "\(what): \(error)", sourceLocation: sourceLocation)
            if let id { #expect(error.id == id, "\(what): \(error)", sourceLocation: sourceLocation) }
        } catch {
            Issue.record("\(what) threw \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func aRollingDeployNeverDropsAFieldSilently() async throws {
        let server = try await PostgresTestServer.shared()
        let table = PostgresStores.tableName("deploy")
        let old = try await Self.open(V1.self, table)
        try await old.save(contentsOf: (0..<10).map(V1.make))

        let new = try await Self.open(V2.self, table, migrations: StockItems.migrations())
        #expect(
            try await server.psql("SELECT string_agg(DISTINCT schema_version::text, ',') FROM \"\(table)\"")
                == "2",
            "every row is upgraded when version 2 opens")
        #expect(try await new.fetchAll() == (0..<10).map { V2(upgrading: .make($0)) })
        var shelved = try #require(try await new.fetch(id: "sku-00003"))
        shelved.shelf = "A3"
        try await new.save(shelved)

        // The version 1 instance that was already running refuses what version 2 wrote.
        await Self.expectNewer("fetch", id: "sku-00003") { _ = try await old.fetch(id: "sku-00003") }
        await Self.expectNewer("a blind save", id: "sku-00003") {
            try await old.save(V1(id: "sku-00003", name: "renamed", stock: 1))
        }
        await Self.expectNewer("a batch holding one such row") {
            try await old.save(contentsOf: [.make(50), .make(3)])
        }
        await Self.expectNewer("update(id:_:)", id: "sku-00003") {
            try await old.update(id: "sku-00003") { $0.stock -= 1 }
        }
        #expect(try await new.fetch(id: "sku-00003") == shelved, "the shelf is still there")
        #expect(try await new.fetch(id: "sku-00050") == nil, "nothing of the refused batch was written")

        // A new row from the old instance is its own; the new one reads it upgraded.
        try await old.save(.make(60))
        #expect(try await old.fetch(id: "sku-00060") == .make(60))
        #expect(try await new.fetch(id: "sku-00060") == V2(upgrading: .make(60)))

        // An old instance starting now is refused at open.
        await Self.expectNewer("opening at version 1") { _ = try await Self.open(V1.self, table) }
        await old.close()
        await new.close()
        try await PostgresStores.drop(table)
    }

    /// Concurrent saves share statements; one refused save in a shared statement fails alone,
    /// and every other save of that statement is written.
    @Test func aRefusedSaveAmongConcurrentOnesFailsAlone() async throws {
        let table = PostgresStores.tableName("shared")
        let old = try await Self.open(V1.self, table)
        try await old.save(contentsOf: (0..<5).map(V1.make))
        let new = try await Self.open(V2.self, table, migrations: StockItems.migrations())
        let outcomes = await withTaskGroup(of: (Int, Bool).self) { group in
            for index in [3] + Array(100..<160) {
                group.addTask {
                    do {
                        try await old.save(.make(index))
                        return (index, true)
                    } catch {
                        return (index, false)
                    }
                }
            }
            var outcomes: [Int: Bool] = [:]
            for await (index, saved) in group { outcomes[index] = saved }
            return outcomes
        }
        #expect(outcomes.filter { !$0.value }.map(\.key) == [3], "only the save over the newer row fails")
        #expect(try await new.count() == 65)
        #expect(try await new.fetch(id: "sku-00003") == V2(upgrading: .make(3)))
        await old.close()
        await new.close()
        try await PostgresStores.drop(table)
    }

    @Test func killedDuringTheUpgradeLeavesTheOldRowsAndTheNextOpenUpgradesOnce() async throws {
        let server = try await PostgresTestServer.shared()
        let table = PostgresStores.tableName("upgrade")
        let rows = (0..<1_200).map(V1.make)
        let old = try await Self.open(V1.self, table)
        try await old.save(contentsOf: rows)
        await old.close()
        let fingerprint = """
            SELECT md5(string_agg(id || body::text || version || schema_version, ',' ORDER BY id))
            FROM "\(table)"
            """
        let before = try await server.psql(fingerprint)

        let child = try ChildProcess(["postgres-upgrade", server.connectionString, table, "700"])
        try await child.waitForLine("upgrading")
        let printed = await child.finish()
        #expect(
            child.process.terminationReason == .uncaughtSignal && child.process.terminationStatus == SIGKILL,
            "the upgrade was to be killed at its 700th row; it printed \(printed.suffix(3))")
        #expect(try await server.psql(fingerprint) == before, "every row as version 1 wrote it")
        #expect(try await server.psql("SELECT schema_version FROM \"\(table)_feed\"") == "1")

        let upgrades = Mutex(0)
        let migrations = try StockItems.migrations { _ in upgrades.withLock { $0 += 1 } }
        let new = try await Self.open(V2.self, table, migrations: migrations)
        #expect(upgrades.withLock { $0 } == 1_200)
        #expect(try await new.fetchAll() == rows.map(V2.init(upgrading:)))
        #expect(
            try await server.psql(
                "SELECT count(*) FROM \"\(table)\" WHERE schema_version = 2 AND version = 2") == "1200",
            "each row upgraded, and counted as written, once")
        await new.close()
        let again = try await Self.open(V2.self, table, migrations: migrations)
        #expect(upgrades.withLock { $0 } == 1_200, "a second open upgrades nothing")
        await again.close()
        try await PostgresStores.drop(table)
    }

    // MARK: Storage SQL can read

    /// An entity with the values `jsonb` cannot keep, for the refusal test.
    struct Priced: Codable, Identifiable, Sendable, Equatable {
        var id: String
        var price: Decimal
        var weight: Double
        var tags: [String]
    }

    @Test func bodiesAreJSONBWithDatesSQLCanReadAndSort() async throws {
        let server = try await PostgresTestServer.shared()
        let table = PostgresStores.tableName("json")
        let store = try await Self.open(V2.self, table)
        let now = Date()
        let items = [
            V2(
                id: "a", name: "later", stock: 1, shelf: "A",
                counted: Date(timeIntervalSince1970: 1_700_000_000.5)),
            V2(
                id: "b", name: "whole", stock: 2, shelf: "B",
                counted: Date(timeIntervalSince1970: 1_700_000_000)),
            V2(id: "c", name: "now", stock: 3, shelf: "C", counted: now),
            V2(
                id: "d", name: "fine", stock: 4, shelf: "D",
                counted: Date(timeIntervalSince1970: 1_700_000_000.123456789)),
        ]
        try await store.save(contentsOf: items)
        #expect(try await store.fetchAll() == items, "every date reads back exactly, now's too")
        #expect(
            try await server.psql("SELECT body->>'counted' FROM \"\(table)\" WHERE id = 'b'")
                == "2023-11-14T22:13:20.000000000Z")
        #expect(
            try await server.psql(
                "SELECT extract(epoch FROM (body->>'counted')::timestamptz) FROM \"\(table)\" WHERE id = 'd'")
                == "1700000000.123457", "PostgreSQL reads the date, to its microsecond")
        #expect(
            try await server.psql("SELECT string_agg(id, ',' ORDER BY body->>'counted') FROM \"\(table)\"")
                == "b,d,a,c", "as text, the dates sort in time order")
        #expect(
            try await server.psql("SELECT body->>'shelf' FROM \"\(table)\" WHERE (body->>'stock')::int = 3")
                == "C")
        // A date ISO 8601 cannot write is refused at save, and nothing is written.
        for seconds in [Double.infinity, 1e12] {
            await #expect(throws: RepositoryError.self) {
                try await store.save(
                    V2(
                        id: "far", name: "x", stock: 0, shelf: "",
                        counted: Date(timeIntervalSince1970: seconds)))
            }
        }
        #expect(try await store.fetch(id: "far") == nil)
        await store.close()
        try await PostgresStores.drop(table)
    }

    @Test func valuesJSONBCannotKeepAreRefusedNamingTheFieldAndNothingIsWritten() async throws {
        let table = PostgresStores.tableName("refuse")
        let store = try await Self.open(Priced.self, table)
        let good = Priced(id: "good", price: 2.5, weight: 1, tags: ["x"])
        let refused: [(Priced, String)] = [
            (Priced(id: "nan", price: .nan, weight: 1, tags: []), "price"),
            (Priced(id: "inf", price: 1, weight: .infinity, tags: []), "weight"),
            (Priced(id: "nul", price: 1, weight: 1, tags: ["ok", "a\u{0}b"]), "tags[1]"),
        ]
        for (entity, field) in refused {
            for batch in [[entity], [good, entity]] {
                do {
                    try await batch.count == 1 ? store.save(entity) : store.save(contentsOf: batch)
                    Issue.record("\(entity.id) was saved")
                } catch let error as RepositoryError {
                    #expect(error.code == .encodingFailed && error.id == entity.id, "\(error)")
                    #expect("\(error)".contains(field), "\(error) names \(field)")
                }
            }
        }
        #expect(try await store.count() == 0, "nothing of any refused call was written")
        // The same words as text are no problem.
        let wordy = Priced(id: "text", price: 1, weight: 1, tags: ["NaN", "\\u0000", "a\\b"])
        try await store.save(wordy)
        #expect(try await store.fetch(id: "text") == wordy)
        try await store.delete(id: "text")
        await store.close()
        try await PostgresStores.drop(table)

        // A bytea table of an earlier release keeps U+0000, and refuses the NaN it could not read.
        let earlier = PostgresStores.tableName("refuse")
        try await PostgresStores.createEarlierReleaseTable(earlier, integerKeys: false)
        let bytea = try await Self.open(Priced.self, earlier)
        let withNUL = Priced(id: "nul", price: 1, weight: 1, tags: ["a\u{0}b"])
        try await bytea.save(withNUL)
        #expect(try await bytea.fetch(id: "nul") == withNUL)
        await #expect(throws: RepositoryError.self) {
            try await bytea.save(Priced(id: "nan", price: .nan, weight: 1, tags: []))
        }
        #expect(try await bytea.count() == 1)
        await bytea.close()
        try await PostgresStores.drop(earlier)
    }

    @Test func columnsAndIndexesADBAAddsDoNotStopTheStore() async throws {
        let server = try await PostgresTestServer.shared()
        let table = PostgresStores.tableName("dba")
        try await Self.open(V2.self, table).close()
        try await server.psql(
            """
            ALTER TABLE "\(table)" ADD COLUMN note text;
            ALTER TABLE "\(table)" ADD COLUMN added timestamptz NOT NULL DEFAULT now();
            ALTER TABLE "\(table)" ADD COLUMN shelf text GENERATED ALWAYS AS (body->>'shelf') STORED;
            CREATE INDEX "\(table)_by_shelf" ON "\(table)" (shelf);
            CREATE INDEX "\(table)_by_stock" ON "\(table)" (((body->>'stock')::int));
            """)
        let store = try await Self.open(V2.self, table)
        let item = V2(id: "a", name: "bolt", stock: 9, shelf: "B2", counted: Date(timeIntervalSince1970: 0))
        try await store.save(item)
        #expect(try await store.fetch(id: "a") == item)
        #expect(try await server.psql("SELECT id FROM \"\(table)\" WHERE shelf = 'B2'") == "a")
        await store.close()

        try await server.psql(
            """
            ALTER TABLE "\(table)" ADD COLUMN owner text;
            UPDATE "\(table)" SET owner = 'x';
            ALTER TABLE "\(table)" ALTER COLUMN owner SET NOT NULL;
            """)
        do {
            _ = try await Self.open(V2.self, table)
            Issue.record("a table whose extra column the inserts cannot fill opened")
        } catch let error as RepositoryError {
            #expect(error.code == .rejected && "\(error)".contains("owner"), "\(error)")
        }
        try await PostgresStores.drop(table)
    }
}

/// A service often connects as a user that may only read and write its tables, while another
/// (the owner) creates them: opening, every kind of write, the feed and an upgrade of the rows
/// need no more.
@Suite struct PostgresPrivilegeTests {
    @Test func aUserThatMayOnlyReadAndWriteTheTablesOpensAndWrites() async throws {
        let server = try await PostgresTestServer.shared()
        let table = PostgresStores.tableName("clerk")
        let role = "clerk_\(table.suffix(8))"
        let owner = try await PostgresMigrationTests.open(StockItems.V1.self, table)
        try await owner.save(StockItems.V1.make(1))
        await owner.close()
        try await server.psql(
            """
            CREATE ROLE \(role) LOGIN PASSWORD 'clerk-password';
            GRANT SELECT, INSERT, UPDATE, DELETE ON "\(table)", "\(table)_log", "\(table)_feed", "\(table)_keys" TO \(role);
            GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO \(role);
            """)
        let connection = server.connectionString.replacingOccurrences(
            of: "user=\(server.user) password=\(server.password)",
            with: "user=\(role) password=clerk-password")
        try #require(connection != server.connectionString, "the test names its own user")
        let clerk = try await PostgresRepository<StockItems.V2>(
            connectionString: connection, options: PostgresOptions(tableName: table),
            migrations: StockItems.migrations())
        #expect(clerk.upgradedRowCount == 1)
        try await clerk.save(StockItems.V2(upgrading: .make(2)))
        try await clerk.update(id: StockItems.V1.make(1).id) { $0.stock += 1 }
        try await clerk.delete(id: StockItems.V1.make(2).id)
        let page = try await clerk.changes(since: nil, limit: 10)
        #expect(page.saved.map(\.id) == [StockItems.V1.make(1).id])
        await clerk.close()
        try await PostgresStores.drop(table)
        try await server.psql("DROP OWNED BY \(role); DROP ROLE \(role)")
    }
}
