import Foundation
import Repositories
import RepositoriesHTTP
import RepositoriesPostgres
import RepositoriesSQLite
import RepositoriesTestSupport
import RepositoriesTesting
import Testing

/// The Swift server half end to end, with kills: a phone in a real child process (SQLite
/// and its outbox, over `SyncEndpoint` over `PostgresRepository`, the endpoint in the same
/// process) writes and syncs until it kills itself with SIGKILL mid-sync (before a request,
/// after the server applied one but before the phone heard, during a pull); a tablet in this
/// process, through an endpoint of its own on the same table, adds entities between the
/// rounds. After each kill the phone restarts (its endpoint too) and syncs once. A trigger
/// on the table counts every row the server wrote: every acknowledged change is there,
/// applied once and in the order made, and the phone holds what the server holds.
@Suite(.serialized) struct SyncEndpointCrashTests {
    /// The kills take turns at the three points: 20 rounds, each two child processes and a
    /// PostgreSQL connection or two, is load enough for a two-core CI machine running the rest
    /// of the suite beside it.
    @Test func aPhoneKilledMidSyncConvergesAndNothingIsAppliedTwice() async throws {
        let steps: [_OfflineFirstStep] = [.sending, .sent, .pulling]
        let server = try await PostgresTestServer.shared()
        let table = PostgresStores.tableName("killed")
        let store = try await PostgresStores.make(FixtureEntity.self, table: table, poolSize: 2)
        try await server.psql(Self.countingWrites(of: table))
        let directory = try TemporaryDirectory()
        let phone = directory.url.appending(path: "phone")
        try FileManager.default.createDirectory(at: phone, withIntermediateDirectories: true)
        let tabletLocal = try await FileRepository<FixtureEntity>(fileURL: directory.file("tablet.store"))
        let tabletOutbox = try await Outbox<FixtureEntity>(fileURL: directory.file("tablet.outbox"))
        let tablet = HTTPRepository<FixtureEntity>(
            baseURL: URL(string: "https://sync.example/items")!,
            configuration: .init(changeFeed: .changesEndpoint()),
            transport: SyncEndpointTransport(SyncEndpoint(store: store), at: "/items")
        ).offlineFirst(
            local: tabletLocal, outbox: tabletOutbox, conflicts: .lastWriterWins, automaticSync: nil)

        var random = SeededRandomNumberGenerator(seed: 24)
        var history = ChangeHistory()
        var phoneNext = 0
        var tabletNext = 1_000_000
        for round in 0..<ChildProcess.killCount {
            let step = steps[round % steps.count]
            for _ in 0..<2 {
                history.read(["begin save \(tabletNext) 1"])
                try await tablet.save(FixtureEntity.make(tabletNext, revision: 1))
                history.read(["ack save \(tabletNext) 1"])
                tabletNext += 1
            }
            _ = try await tablet.sync()

            let child = try ChildProcess([
                "offline-first-endpoint", phone.path, server.connectionString, table, step.rawValue,
                String(Int.random(in: 1...4, using: &random)), String(phoneNext),
            ])
            try await child.waitForLine("ready")
            let printed = await child.finish()
            #expect(
                child.process.terminationReason == .uncaughtSignal
                    && child.process.terminationStatus == SIGKILL,
                "round \(round): the phone was to kill itself at \(step); it printed \(printed.suffix(3))")
            history.read(printed)
            // The next phone takes new IDs after every one this one began, acknowledged or not.
            for line in printed where line.hasPrefix("begin save") {
                if let id = Int(line.split(separator: " ")[2]), id < 1_000_000 {
                    phoneNext = max(phoneNext, id + 1)
                }
            }

            let restarted = try ChildProcess([
                "offline-first-endpoint-sync", phone.path, server.connectionString, table,
            ])
            let synced = await restarted.finish()
            try #require(
                restarted.process.terminationStatus == 0 && synced.contains { $0.hasPrefix("synced") },
                "round \(round): the restarted phone's sync failed: \(synced.suffix(3))")

            let held = try await store.fetchAll()
            let onServer = Dictionary(
                held.map { ($0.id, ChangeHistory.Change.save($0.revision ?? 0)) },
                uniquingKeysWith: { _, last in last })
            for problem in history.check(server: onServer) {
                Issue.record("killed at \(step), round \(round): \(problem)")
            }
            for entity in held where entity != FixtureEntity.make(entity.id, revision: entity.revision ?? 0) {
                Issue.record(
                    "killed at \(step), round \(round): entity \(entity.id) is not what any change wrote")
            }
            for problem in try await Self.applied(table, server).problems(against: history) {
                Issue.record("killed at \(step), round \(round): \(problem)")
            }
            let local = try await SQLiteRepository<FixtureEntity>(
                fileURL: phone.appending(path: "device.sqlite"))
            #expect(
                try await local.fetchAll().sorted { $0.id < $1.id } == held.sorted { $0.id < $1.id },
                "round \(round): the phone holds what the server holds")
            try await local.close()
            let outbox = try await Outbox<FixtureEntity>(fileURL: phone.appending(path: "device.outbox"))
            #expect(try await outbox.changes().isEmpty, "round \(round): the phone's outbox drained")
            try await outbox.close()
        }
        _ = try await tablet.sync()
        #expect(
            try await tablet.fetchAll().sorted { $0.id < $1.id }
                == (try await store.fetchAll()).sorted { $0.id < $1.id },
            "the tablet holds what the server holds")
        try await tabletLocal.close()
        try await tabletOutbox.close()
        await store.close()
    }

    /// A trigger that keeps every row `table` writes or deletes, in order, in `<table>_applied`.
    private static func countingWrites(of table: String) -> String {
        """
        CREATE TABLE "\(table)_applied" (n bigserial PRIMARY KEY, op text NOT NULL, id text NOT NULL, body jsonb);
        CREATE FUNCTION "\(table)_count"() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP = 'DELETE' THEN
                INSERT INTO "\(table)_applied" (op, id) VALUES ('delete', OLD.id::text);
                RETURN OLD;
            END IF;
            INSERT INTO "\(table)_applied" (op, id, body) VALUES ('save', NEW.id::text, NEW.body);
            RETURN NEW;
        END $$;
        CREATE TRIGGER "\(table)_counted" AFTER INSERT OR UPDATE OR DELETE ON "\(table)"
            FOR EACH ROW EXECUTE FUNCTION "\(table)_count"();
        """
    }

    /// Every row the trigger kept, as the changes the server applied.
    private static func applied(_ table: String, _ server: PostgresTestServer) async throws -> AppliedChanges
    {
        let rows = try await server.psql(
            """
            SELECT op || ' ' || id || ' ' || coalesce(body::text, '')
            FROM "\(table)_applied" ORDER BY n
            """)
        var applied = AppliedChanges()
        for row in rows.split(separator: "\n") {
            let words = row.split(separator: " ", maxSplits: 2).map(String.init)
            guard words.count >= 2, let id = Int(words[1]) else {
                Issue.record("a row of the trigger's table the test cannot read: \(row)")
                continue
            }
            if words[0] == "delete" {
                applied.append(id: id, .delete)
            } else {
                let entity = try JSONDecoder().decode(FixtureEntity.self, from: Data(words[2].utf8))
                applied.append(id: id, .save(entity.revision ?? 0))
            }
        }
        return applied
    }
}
