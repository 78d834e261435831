import Foundation
import GRDB

// GRDB's usual way with a Codable record: the struct itself is the record, one column per
// property, encoded and decoded by GRDB's Codable support with its default strategies. On
// Linux as on Apple platforms that stores the Date as text, "yyyy-MM-dd HH:mm:ss.SSS" in
// UTC (millisecond precision; the entity's dates are whole seconds, so they round-trip
// exactly, which `Workloads.check` verifies).
extension PeerEntity: FetchableRecord, PersistableRecord {}

/// GRDB as its documentation sets it up: a `DatabasePool` (WAL), the schema from a
/// `DatabaseMigrator` on every open, each read in `read`, each write in its own `write`.
///
/// Saves are `insert`s, GRDB's cheapest write of a record: every save of the workloads
/// writes a new ID. Our `save` is an upsert (insert, or replace the row with that ID); GRDB's
/// `upsert` does the same, and took about 2.5 times as long as `insert` for the batch here,
/// so comparing with `insert` is the harder test for ours.
///
/// One change from GRDB's defaults, for the same durability as ours: GRDB sets
/// `synchronous=NORMAL` when it puts a pool in WAL mode, where a commit that returned can be
/// lost by a power failure; opening sets it back to FULL on the writer connection and checks
/// it took.
final class GRDBStore: PeerStore {
    let pool: DatabasePool

    init(url: URL) async throws {
        pool = try DatabasePool(path: url.path)
        try await pool.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        let synchronous = try await synchronousLevel()
        guard synchronous == 2 else {
            throw PeerBenchmarkError(
                "GRDB's writer runs at synchronous=\(synchronous), not 2 (FULL): \(url.path)")
        }
        var migrator = DatabaseMigrator()
        migrator.registerMigration("peerEntity") { db in
            try db.create(table: PeerEntity.databaseTableName) { table in
                table.primaryKey("id", .integer)
                table.column("name", .text).notNull()
                table.column("score", .double).notNull()
                table.column("createdAt", .datetime).notNull()
                table.column("notes", .text).notNull()
            }
        }
        try migrator.migrate(pool)
    }

    /// `PRAGMA synchronous` as the writer connection reports it: 2 is FULL, 1 NORMAL.
    func synchronousLevel() async throws -> Int {
        try await pool.writeWithoutTransaction { db in
            try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1
        }
    }

    /// `PRAGMA journal_mode` and `sqlite_version()`, for the run's header.
    func settings() async throws -> (journalMode: String, sqliteVersion: String) {
        try await pool.read { db in
            (
                try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "?",
                try String.fetchOne(db, sql: "SELECT sqlite_version()") ?? "?"
            )
        }
    }

    func fetchAll() async throws -> [PeerEntity] {
        try await pool.read { db in try PeerEntity.fetchAll(db) }
    }

    func fetch(id: Int) async throws -> PeerEntity? {
        try await pool.read { db in try PeerEntity.fetchOne(db, id: id) }
    }

    /// An insert: the workloads save new IDs only.
    func save(_ entity: PeerEntity) async throws {
        try await pool.write { db in try entity.insert(db) }
    }

    /// One write transaction of inserts.
    func save(contentsOf entities: [PeerEntity]) async throws {
        try await pool.write { db in
            for entity in entities { try entity.insert(db) }
        }
    }

    func close() async throws {
        try pool.close()
    }
}
