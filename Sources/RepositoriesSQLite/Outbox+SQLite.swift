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
    /// and the first pull after an unclean end reads the remote in full; since other
    /// instances may hold the outbox open, the marker cannot tell their unclean end from
    /// their being open, and the first pull of every instance reads in full.
    ///
    /// The outbox serves this repository only: give the same `local` to `offlineFirst`.
    ///
    /// **Several instances, several processes.** An app and its extension (a widget, a share
    /// extension) each open the database in the app group's container and an outbox in it,
    /// and both write, at once:
    ///
    /// ```swift
    /// let notes = try await SQLiteRepository<Note>(fileURL: group.appending(path: "notes.sqlite"))
    /// let outbox = try await Outbox(in: notes)
    /// ```
    ///
    /// - Every change to the outbox (a write's change, a sync's answer, a retry, a discard)
    ///   reads the changes it replaces inside the transaction that writes it, so a change one
    ///   process makes while the other syncs is neither lost nor taken for the one sent. The
    ///   highest revision handed out is kept in the file (`repositories_revisions_` followed by
    ///   the table's name), so no two changes share one.
    /// - A pull writes the remote's versions in a transaction that leaves out every ID with a
    ///   pending change as it reads the outbox then: a change the other process just made is
    ///   never overwritten.
    /// - One instance syncs at a time, in any process: a sync holds the lock of the file
    ///   `notes.sqlite.outbox-note.lock` while it runs, and a sync elsewhere waits for it (up
    ///   to `lockWait`, five minutes by default, then throws `locked`). A killed process lets go of it with its end.
    /// - `pendingChanges()`, the repository's snapshots (entities included) and its
    ///   conflicts read the outbox's tables, and read them again when another connection
    ///   commits to the file (SQLite's `data_version`, checked every 50 ms while such a
    ///   stream exists). Give each process, or each instance, a `SQLiteRepository` of its own:
    ///   instances on one `SQLiteRepository` share its connection, and do not hear each
    ///   other's commits. The local rows another process
    ///   writes reach `values` through `observed(following: local.committedChanges())`.
    ///
    /// Beside the database go the outbox's files, named after the database file and the
    /// table's name in lower case: the sync lock (`notes.sqlite.outbox-note.lock`), the time of
    /// the last sync (`.synced`), the feed's cursor (`.cursor`) and, at a relaxed
    /// `synchronous`, the session marker (`.open`). Move or delete them with the database.
    /// Close the outbox before `local`: closing `local` closes the connection both use, and
    /// the outbox's calls then throw `closed`.
    ///
    /// - Parameters:
    ///   - local: the local store, opened from a file.
    ///   - lockWait: how long a sync waits for another instance's sync to end before throwing
    ///     `locked` (any number of instances open the outbox at once; one syncs at a time);
    ///     `nil` waits up to five minutes.
    ///   - migrations: the entity's version and upgrades, for changes queued by an earlier
    ///     release of the app; by default `local`'s own.
    /// - Throws: `rejected` for an in-memory `local` (an outbox must outlive the process);
    ///   what opening an `SQLiteRepository` throws for its tables (`writtenByNewerVersion`, `corrupted`, `decodingFailed` naming
    ///   the change, with nothing changed).
    public convenience init(
        in local: SQLiteRepository<Entity>, lockWait: Duration? = nil, migrations: Migrations<Entity>? = nil
    ) async throws {
        try await self.init(in: local, lockWait: lockWait, migrations: migrations, inGroup: false)
    }

    /// ``init(in:lockWait:migrations:)``, as a member of the `SyncGroup` of `local`'s file
    /// when `inGroup`: revisions from the counter the group's members share, and each change
    /// keeping its place in the group's order.
    convenience init(
        in local: SQLiteRepository<Entity>, lockWait: Duration?, migrations: Migrations<Entity>?,
        inGroup: Bool
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
        let records: SQLiteRepository<OutboxRecord<Entity>>
        let conflicts: SQLiteRepository<StoredConflict<Entity, Entity.ID>>
        do {
            records = try await SQLiteRepository(
                beside: local, tableName: "repositories_outbox_\(local.tableName)",
                migrations: try Self.recordMigrations(migrations))
        } catch {
            throw Self.openingError(error, location: fileURL.path)
        }
        do {
            conflicts = try await SQLiteRepository(
                beside: local, tableName: "repositories_conflicts_\(local.tableName)",
                migrations: try Self.conflictMigrations(migrations))
        } catch {
            // The error that stopped the opening is the one to tell.
            do { try await records.close() } catch {}
            throw error
        }
        let joint: SQLiteOutboxJoint<Entity>
        do {
            joint = try await SQLiteOutboxJoint(local: local, records: records, inGroup: inGroup)
        } catch {
            do { try await conflicts.close() } catch {}
            do { try await records.close() } catch {}
            throw error
        }
        try await self.init(
            parts: OutboxParts(
                records: records, conflicts: conflicts, fileURL: fileURL, sidecars: sidecars, joint: joint,
                syncLock: OutboxSyncLock(
                    url: sidecars.appendingPathExtension("lock"), wait: lockWait ?? .seconds(300),
                    holding: "the outbox of the table \(local.tableName) in \(fileURL.path)"),
                // A crash cannot split a write; with relaxed durability a power loss can still
                // lose the last commits while the feed's cursor, in its own file, survives.
                marksSessions: local.options.synchronous != .full, groupOrdered: joint.usesGroupCounter))
    }
}

extension SQLiteRepository: OutboxStorage {}
