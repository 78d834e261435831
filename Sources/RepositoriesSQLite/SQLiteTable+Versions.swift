import Foundation
import Repositories

/// The entity version a table's rows were written by, and the one-time upgrade of older rows.
///
/// The version is kept per table, not per row, in a table of its own the file shares:
///
/// ```sql
/// CREATE TABLE "repositories_entity_versions" (
///     table_name TEXT PRIMARY KEY,  -- the repository's table, as SQLiteOptions.tableName names it
///     version INTEGER NOT NULL      -- the Migrations.currentVersion that wrote every row
/// )
/// ```
///
/// Per table suffices because every row of a table is at one version once it is open: rows
/// are only written at the repository's current version, and opening rewrites every older
/// row, together with the stamp, in one transaction. A table with no stamp (every table
/// written before versions existed) reads as version 1, and opening it at version 1 writes
/// nothing, so the file stays exactly as it was. A stamp column in each row would have
/// changed the table's shape, which an earlier release refuses to open, and turned every
/// existing table into one that must be rewritten.
///
/// What a per-table stamp cannot see: a process running an older release that already had the
/// table open while a newer one upgraded it would go on writing rows of its own version under
/// the newer stamp. Such a row then fails to decode on read (`decodingFailed` naming it), and
/// is never dropped.
extension SQLiteTable {
    /// The table of stamps, shared by every repository table of the file.
    static let versionsTableName = "repositories_entity_versions"

    private static let createVersions =
        "CREATE TABLE IF NOT EXISTS \(versionsTableName) (table_name TEXT PRIMARY KEY, version INTEGER NOT NULL)"

    /// The entity version that wrote this table's rows: its stamp, or 1 when it has none.
    ///
    /// Reads only; a file without the table of stamps is not changed.
    func storedVersion(on connection: SQLiteConnection) throws -> Int {
        let hasStamps = try connection.hasTable(named: Self.versionsTableName)
        guard hasStamps else { return 1 }
        return try connection.withStatement(
            "SELECT version FROM \(Self.versionsTableName) WHERE table_name = ?1"
        ) { statement in
            try statement.bind(.text(name), at: 1)
            return try statement.step() ? Int(statement.int64(at: 0)) : 1
        }
    }

    /// Throws `writtenByNewerVersion` when the table's rows were written by a version newer
    /// than `currentVersion`; reads only.
    func refuseNewerVersion(than currentVersion: Int, on connection: SQLiteConnection, location: String)
        throws
    {
        let stored = try storedVersion(on: connection)
        if stored > currentVersion {
            throw RepositoryError.writtenByNewerVersion(
                stored, knownVersion: currentVersion, location: location)
        }
    }

    /// Brings every row written by an older version up to `currentVersion`, and stamps the
    /// table with it, in one transaction: after a crash the table holds every row as it was,
    /// or every row upgraded.
    ///
    /// Reads first without taking the write lock, so a table already at `currentVersion` (or
    /// a table at version 1 opened at version 1) costs one read and writes nothing.
    ///
    /// - Parameter reencode: decodes a row's body written by the given version through the
    ///   migrations and returns it encoded at `currentVersion`, with its declared fields'
    ///   values (written to their columns with it); throws when it cannot.
    /// - Returns: how many rows were upgraded.
    /// - Throws: `writtenByNewerVersion` with nothing written; `decodingFailed` naming the
    ///   row's ID and the version that wrote it, with nothing written; `corrupted` when a
    ///   row fails its checksum.
    func upgradeRows(
        to currentVersion: Int, on connection: SQLiteConnection, location: String,
        reencode: @escaping @Sendable (Data, Int) throws -> (Data, [FieldValue])
    ) throws -> Int {
        let stored = try storedVersion(on: connection)
        if stored > currentVersion {
            throw RepositoryError.writtenByNewerVersion(
                stored, knownVersion: currentVersion, location: location)
        }
        guard stored < currentVersion else { return 0 }
        return try connection.transaction(.immediate) {
            // Read again under the write lock: another connection may have done this meanwhile.
            let version = try storedVersion(on: connection)
            if version > currentVersion {
                throw RepositoryError.writtenByNewerVersion(
                    version, knownVersion: currentVersion, location: location)
            }
            guard version < currentVersion else { return 0 }
            let rows = try connection.withStatement(selectAll) { statement in
                var rows: [SQLiteStoredRow] = []
                while try statement.step() { rows.append(SQLiteStoredRow(of: statement)) }
                return rows
            }
            // Everything is decoded before anything is written, so a row no upgrade reads
            // leaves the table as it was.
            let upgraded = try Self.upgraded(rows, from: version, location: location, reencode: reencode)
            for row in upgraded {
                try connection.withStatement(update) { statement in
                    try statement.bind(integer: row.seq, at: 1)
                    try statement.bind(body: row.body, as: bodyColumn, at: 2)
                    try statement.bind(
                        integer: Int64(SQLiteRow.checksum(seq: row.seq, key: row.key, body: row.body)), at: 3)
                    try statement.bind(fields: row.fields, from: 4)
                    _ = try statement.step()
                }
            }
            try connection.execute(Self.createVersions)
            try connection.withStatement(
                "INSERT INTO \(Self.versionsTableName) (table_name, version) VALUES (?1, ?2) "
                    + "ON CONFLICT(table_name) DO UPDATE SET version = excluded.version"
            ) { statement in
                try statement.bind(.text(name), at: 1)
                try statement.bind(integer: Int64(currentVersion), at: 2)
                _ = try statement.step()
            }
            return upgraded.count
        }
    }

    /// A row brought up to the current version: its place, its key, its new body and its
    /// declared fields' values.
    private struct UpgradedRow: Sendable {
        var seq: Int64
        var key: SQLiteKey
        var body: Data
        var fields: [FieldValue]
    }

    /// The fewest rows worth a processor of their own when upgrading: below it, starting a
    /// thread costs more than it saves.
    static let rowsPerProcessor = 1_000

    /// Every row checked and re-encoded, in order; split into one chunk per processor (each
    /// at least ``rowsPerProcessor`` rows), the chunks at once on Dispatch's threads (opening
    /// runs on the writer's queue, never on Swift's cooperative pool).
    ///
    /// - Throws: for the first row, in order, that is damaged (`corrupted`) or that no
    ///   upgrade reads (`decodingFailed` naming its ID and `version`), as a pass over the rows
    ///   one by one would.
    private static func upgraded(
        _ rows: [SQLiteStoredRow], from version: Int, location: String,
        reencode: @escaping @Sendable (Data, Int) throws -> (Data, [FieldValue])
    ) throws -> [UpgradedRow] {
        let chunks = try ParallelChunks.map(count: rows.count, minimumChunk: rowsPerProcessor) { chunk in
            try chunk.map { index in
                try upgradedRow(rows[index], from: version, location: location, reencode: reencode)
            }
        }
        return Array(chunks.joined())
    }

    private static func upgradedRow(
        _ stored: SQLiteStoredRow, from version: Int, location: String,
        reencode: (Data, Int) throws -> (Data, [FieldValue])
    ) throws -> UpgradedRow {
        let row = try stored.verified(location: location)
        do {
            let (body, fields) = try reencode(row.body, version)
            return UpgradedRow(seq: stored.seq, key: row.key, body: body, fields: fields)
        } catch {
            throw RepositoryError.decodingFailed(
                record: "\(row.key.description), written by entity version \(version)",
                location: location, underlying: error,
                recovery:
                    "Check the upgrade from version \(version) in the repository's Migrations<Entity>: it cannot read this row. Nothing was changed"
            )
        }
    }
}
