import Foundation
import Repositories

extension Outbox {
    /// Opens the outbox kept in `local`'s database, beside its table: the pending changes in
    /// the table `repositories_outbox_` followed by the local table's name, the conflicts a sync
    /// settled in `repositories_conflicts_` followed by it, both made on first use.
    ///
    /// ```swift
    /// let local = try await SQLiteRepository<Note>(fileURL: dir.appending(path: "notes.sqlite"))
    /// let outbox = try await Outbox(in: local)
    /// let notes = api.offlineFirst(local: local, outbox: outbox)
    /// ```
    ///
    /// Every write of the offline-first repository then records its change and writes the
    /// local row **in one SQLite transaction**, and so do a discard and a sync that settles a
    /// conflict: after a crash at any point both are there or neither, with no undo path.
    /// Writes from several tasks share the local store's commits, so a write costs one commit
    /// and one fsync, not two.
    ///
    /// The outbox is exactly as durable as `local`'s ``SQLiteOptions/synchronous`` setting
    /// makes its commits (a journal outbox flushes every write). At `.full`, the default, the
    /// first pull after a killed session reads only what changed, since nothing can be split;
    /// at a relaxed setting, a power loss can lose the last commits while the feed's cursor
    /// survives in its file, so the outbox keeps a session marker, as a journal outbox does,
    /// and the first pull after an unclean end reads the remote in full.
    ///
    /// The outbox serves this repository only: give the same `local` to `offlineFirst`. One
    /// outbox instance at a time holds it, in this process or another. Beside the database go
    /// its files, named after the database file and the table's name in lower case: the lock
    /// (`notes.sqlite.outbox-note.lock`), the time of the last sync (`.synced`), the feed's
    /// cursor (`.cursor`) and, at a relaxed `synchronous`, the session marker (`.open`). Move
    /// or delete them with the database. Close the outbox before `local`: closing `local`
    /// closes the connection both use, and the outbox's calls then throw `closed`.
    ///
    /// - Parameters:
    ///   - local: the local store, opened from a file.
    ///   - lockWait: how long opening waits for another holder of the outbox to let go before
    ///     throwing `locked`; `nil` throws at once.
    ///   - migrations: the entity's version and upgrades, for changes queued by an earlier
    ///     release of the app; by default `local`'s own.
    /// - Throws: `rejected` for an in-memory `local` (an outbox must outlive the process);
    ///   `locked` when another instance holds the outbox; what opening an `SQLiteRepository`
    ///   throws for its tables (`writtenByNewerVersion`, `corrupted`, `decodingFailed` naming
    ///   the change, with nothing changed).
    public convenience init(
        in local: SQLiteRepository<Entity>, lockWait: Duration? = nil, migrations: Migrations<Entity>? = nil
    ) async throws {
        guard let fileURL = local.fileURL else {
            throw RepositoryError.rejected(
                "An outbox cannot be kept in an in-memory SQLite database: its changes must outlive the process",
                recovery: "Open the SQLiteRepository from a file, or use Outbox(fileURL:)")
        }
        let migrations = migrations ?? local.migrations
        // SQLite compares table names without regard to ASCII case (only): so does the lock.
        let name = String(
            String.UnicodeScalarView(
                local.tableName.unicodeScalars.map {
                    ("A"..."Z").contains($0) ? Unicode.Scalar($0.value + 32)! : $0
                }))
        let sidecars = fileURL.appendingPathExtension("outbox-\(name)")
        let lock = try await OutboxLock(
            url: sidecars.appendingPathExtension("lock"), lockWait: lockWait,
            holding: "of the table \(local.tableName) in \(fileURL.path)")
        let records: SQLiteRepository<OutboxRecord<Entity>>
        let conflicts: SQLiteRepository<StoredConflict<Entity, Entity.ID>>
        do {
            do {
                records = try await SQLiteRepository(
                    beside: local, tableName: "repositories_outbox_\(local.tableName)",
                    migrations: try Self.recordMigrations(migrations))
            } catch {
                throw Self.openingError(error, location: fileURL.path)
            }
            conflicts = try await SQLiteRepository(
                beside: local, tableName: "repositories_conflicts_\(local.tableName)",
                migrations: try Self.conflictMigrations(migrations))
        } catch {
            lock.release()
            throw error
        }
        let joint = SQLiteOutboxJoint(local: local, records: records)
        try await self.init(
            parts: OutboxParts(
                records: records, conflicts: conflicts, fileURL: fileURL, sidecars: sidecars, joint: joint,
                // A crash cannot split a write; with relaxed durability a power loss can still
                // lose the last commits while the feed's cursor, in its own file, survives.
                marksSessions: local.options.synchronous != .full),
            lock: lock)
    }
}

extension SQLiteRepository: OutboxStorage {}

/// The outbox's records and the local store's rows, written in one transaction of the local
/// store's database.
struct SQLiteOutboxJoint<Entity: Codable & Identifiable & Sendable>: OutboxJointStorage
where Entity.ID: Codable & Sendable {
    let local: SQLiteRepository<Entity>
    let records: SQLiteRepository<OutboxRecord<Entity>>

    func joins(_ store: Any) -> Bool {
        (store as? SQLiteRepository<Entity>) === local
    }

    func commit(
        saving: [OutboxRecord<Entity>], erasing: [Entity.ID], applying change: LocalChange<Entity>
    ) async throws {
        let table = records.database.table
        let sibling = records.database.siblingNumber
        var writes: [SQLiteWrite] = []
        if !saving.isEmpty {
            writes.append(.into(table, .upsertAll(try saving.map(records.encode)), sibling: sibling))
        }
        if !erasing.isEmpty {
            writes.append(.into(table, .delete(try records.distinctKeys(erasing)), sibling: sibling))
        }
        switch change {
        case .save(let entity): writes.append(.upsert(try local.encode(entity)))
        case .saveBatch(let entities): writes.append(.upsertAll(try entities.map(local.encode)))
        case .delete(let id): writes.append(.deleteOne(try local.key(for: id)))
        case .deleteBatch(let ids): writes.append(.delete(try local.distinctKeys(ids)))
        case .deleteAll: writes.append(.deleteAll)
        }
        // Refused once the outbox is closed, as its other calls are: its tables share the
        // local store's connection, which stays open.
        try records.database.refuseIfSiblingClosed()
        try await local.database.submit(.together(writes))
    }
}
