import Foundation
import Repositories
import Synchronization

/// The outbox's records and the local store's rows, written in one transaction of the local
/// store's database, by any number of outbox instances in any number of processes: every
/// read-modify-write reads the records it changes inside the `BEGIN IMMEDIATE` transaction
/// that changes them, and the highest revision handed out is kept in the file
/// (``revisionTable``), so two instances never give two changes one revision.
struct SQLiteOutboxJoint<Entity: Codable & Identifiable & Sendable>: OutboxJointStorage
where Entity.ID: Codable & Sendable {
    let local: SQLiteRepository<Entity>
    let records: SQLiteRepository<OutboxRecord<Entity>>
    /// The one-row table that keeps the highest revision any instance handed out, quoted.
    let revisionTable: String
    /// Whether the revisions come from the counter of the file's ``SyncGroup``: the outbox's
    /// changes then keep their place in the group's order.
    let usesGroupCounter: Bool

    typealias Record = OutboxRecord<Entity>

    /// The joint storage of `records` beside `local`. Revisions come from the table of the
    /// ``SyncGroup`` in the file when `inGroup`, or when the file has one (so an outbox opened
    /// on a member's table with `Outbox(in:)` never hands out a revision a member did), else
    /// from the outbox's own (`repositories_revisions_` and the local table's name); the table
    /// is made when the file has none, and the group's is raised, as it is made, to the highest
    /// revision of every counter in the file.
    init(local: SQLiteRepository<Entity>, records: SQLiteRepository<Record>, inGroup: Bool) async throws {
        self.local = local
        self.records = records
        let group = SyncGroup.revisionTableName
        let own = "repositories_revisions_\(local.tableName)"
        let chosen = Mutex<String?>(nil)
        try await local.database.submit(
            .reading(
                SQLiteReadingWrite(tableNames: [], siblings: [records.database.siblingNumber]) { connection in
                    let name = try inGroup || connection.hasTable(named: group) ? group : own
                    try connection.execute(
                        "CREATE TABLE IF NOT EXISTS \(SQLiteChangeLog.quoted(name)) (revision INTEGER NOT NULL)"
                    )
                    if name == group { try Self.raiseGroupCounter(on: connection) }
                    chosen.withLock { $0 = name }
                    return 0
                }))
        let name = chosen.withLock { $0 } ?? own
        revisionTable = SQLiteChangeLog.quoted(name)
        usesGroupCounter = name == group
    }

    /// Raises the group's counter to the highest revision any counter in the file holds: an
    /// outbox's own, from before it joined, included. A revision its outbox handed out (and a
    /// discard may have removed) is then never handed out again, and every change made in the
    /// group comes after every change made before.
    private static func raiseGroupCounter(on connection: SQLiteConnection) throws {
        var counters: [String] = []
        try connection.withStatement(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'repositories\\_revisions\\_%' ESCAPE '\\'"
        ) { statement in
            while try statement.step() {
                if let name = statement.text(at: 0) { counters.append(name) }
            }
        }
        let group = SQLiteChangeLog.quoted(SyncGroup.revisionTableName)
        let kept = try connection.integer("SELECT max(revision) FROM \(group)") ?? 0
        var highest = kept
        for counter in counters {
            highest = max(
                highest,
                try connection.integer("SELECT max(revision) FROM \(SQLiteChangeLog.quoted(counter))") ?? 0)
        }
        guard highest > kept else { return }
        try connection.execute("DELETE FROM \(group)")
        try connection.execute("INSERT INTO \(group) (revision) VALUES (\(highest))")
    }

    func joins(_ store: Any) -> Bool {
        (store as? SQLiteRepository<Entity>) === local
    }

    func edit<T: Sendable>(
        _ ids: [Entity.ID], revisionsAfter floor: UInt64,
        _ body: @escaping @Sendable ([Entity.ID: Record], inout UInt64) throws -> OutboxEdit<Entity, T>
    ) async throws -> (result: T, highest: UInt64) {
        let keys = try records.distinctKeys(ids)
        let (records, local, revisionTable, usesGroupCounter) = (
            records, local, revisionTable, usesGroupCounter
        )
        return try await transaction { tables, connection in
            var current: [Entity.ID: Record] = [:]
            for row in try tables.outboxRows(for: keys, on: connection) {
                let record = try records.decode(row)
                current[record.id] = record
            }
            // An outbox opened before the file had a sync group's counter keeps to its own, and
            // to the group's once there is one: no member ever hands out a revision it did.
            var counters = [revisionTable]
            if !usesGroupCounter, try connection.hasTable(named: SyncGroup.revisionTableName) {
                counters.append(SQLiteChangeLog.quoted(SyncGroup.revisionTableName))
            }
            var stored: [String: UInt64?] = [:]
            for counter in counters {
                stored[counter] = try connection.integer("SELECT max(revision) FROM \(counter)").map {
                    UInt64(bitPattern: $0)
                }
            }
            var highest = stored.values.reduce(floor) { max($0, $1 ?? 0) }
            let edit = try body(current, &highest)
            for record in edit.saving { try tables.outbox.upsert(try records.encode(record), on: connection) }
            if !edit.erasing.isEmpty {
                try tables.delete(try records.distinctKeys(edit.erasing), from: tables.outbox, on: connection)
            }
            var deleted = 0
            if let change = edit.local {
                deleted = try Self.apply(
                    change, recording: edit.saving, of: local, tables: tables, on: connection)
            }
            // Kept whenever the file's counter is behind, a floor taken from the records
            // included: a revision a discard removed from the table is never handed out again.
            for (counter, kept) in stored where kept != highest {
                try connection.execute("DELETE FROM \(counter)")
                try connection.execute(
                    "INSERT INTO \(counter) (revision) VALUES (\(Int64(bitPattern: highest)))")
            }
            return ((edit.result, highest), deleted)
        }
    }

    /// Applies `change` to the local table, inside the edit's transaction; returns how many
    /// rows it deleted. Deleting every entity deletes the IDs the edit records as deleted:
    /// the ones the repository read, so an entity another process saved meanwhile, with its
    /// change, is not deleted without one.
    private static func apply(
        _ change: LocalChange<Entity>, recording: [Record], of local: SQLiteRepository<Entity>,
        tables: Tables,
        on connection: SQLiteConnection
    ) throws -> Int {
        func delete(_ ids: [Entity.ID]) throws -> Int {
            let keys = try local.distinctKeys(ids)
            try tables.delete(keys, from: tables.local, on: connection)
            return keys.count
        }
        switch change {
        case .save(let entity):
            try tables.local.upsert(try local.encode(entity), on: connection)
            return 0
        case .saveBatch(let entities):
            for entity in entities { try tables.local.upsert(try local.encode(entity), on: connection) }
            return 0
        case .delete(let id): return try delete([id])
        case .deleteBatch(let ids): return try delete(ids)
        case .deleteAll: return try delete(recording.filter { $0.entity == nil }.map(\.id))
        }
    }

    func applyRemote(saving: [Entity], deleting: [Entity.ID]) async throws -> (
        saved: [Entity], deleted: [Entity.ID]
    ) {
        let saves = try saving.map { (row: try local.encode($0), entity: $0) }
        let deletes = try deleting.map { (key: try local.key(for: $0), id: $0) }
        return try await transaction { tables, connection in
            let asked = saves.map(\.row.key) + deletes.map(\.key)
            let pending = Set(try tables.outboxRows(for: asked, on: connection).map(\.key))
            let saved = saves.filter { !pending.contains($0.row.key) }
            let deleted = deletes.filter { !pending.contains($0.key) }
            for save in saved { try tables.local.upsert(save.row, on: connection) }
            if !deleted.isEmpty { try tables.delete(deleted.map(\.key), from: tables.local, on: connection) }
            return ((saved.map(\.entity), deleted.map(\.id)), deleted.count)
        }
    }

    /// Runs `body` in one transaction of the local store's writer (its own, or its share of
    /// a group commit's), and returns what it returned; `body` also says how many rows of the
    /// local table it deleted.
    ///
    /// - Throws: `closed` once the outbox is closed, as its other calls are: its tables share
    ///   the local store's connection, which stays open; what `body` or the commit throws,
    ///   with nothing written.
    private func transaction<T: Sendable>(
        _ body: @escaping @Sendable (Tables, SQLiteConnection) throws -> (T, deleted: Int)
    ) async throws -> T {
        let tables = Tables(
            outbox: records.database.table, local: local.database.table,
            maximumChunk: local.database.maximumChunk, location: records.database.location)
        let outcome = Mutex<T?>(nil)
        let write = SQLiteReadingWrite(
            tableNames: [tables.outbox.name, tables.local.name], siblings: [records.database.siblingNumber]
        ) {
            connection in
            let (result, deleted) = try body(tables, connection)
            outcome.withLock { $0 = result }
            return deleted
        }
        try records.database.refuseIfSiblingClosed()
        try await local.database.submit(.reading(write))
        guard let result = outcome.withLock({ $0 }) else {
            preconditionFailure("A reading write returned without running its body")
        }
        return result
    }

    func othersCommits() async throws -> Int64 {
        try records.database.refuseIfSiblingClosed()
        return try await local.database.dataVersion()
    }
}

/// The tables a transaction of the joint storage works on.
private struct Tables: Sendable {
    /// The outbox's table.
    let outbox: SQLiteTable
    /// The local store's table.
    let local: SQLiteTable
    /// How many keys one `IN (…)` list holds.
    let maximumChunk: Int
    /// The outbox's location, for the errors of its rows.
    let location: String

    /// The outbox's rows of `keys`, checked.
    func outboxRows(for keys: [SQLiteKey], on connection: SQLiteConnection) throws -> [SQLiteRow] {
        try outbox.storedRows(for: keys, maximumChunk: maximumChunk, on: connection).map {
            try $0.verified(location: location)
        }
    }

    /// Deletes the rows of `keys` from `table`.
    func delete(_ keys: [SQLiteKey], from table: SQLiteTable, on connection: SQLiteConnection) throws {
        try table.delete(SQLiteTable.chunks(of: keys, maximum: maximumChunk), on: connection)
    }
}
