import Foundation
import Synchronization

/// A durable, crash-safe queue of the changes this device made that have not reached the
/// remote yet: one pending change per entity ID, in the order the IDs were first changed.
///
/// ```swift
/// let outbox = try await Outbox<Note>(fileURL: dir.appending(path: "notes.outbox"))
/// let notes = api.offlineFirst(local: file, outbox: outbox, conflicts: .lastWriterWins)
/// ```
///
/// Opened with ``init(fileURL:lockWait:migrations:)``, the outbox keeps its records in the
/// journal of a ``FileRepository``, so it has the same guarantees: once a write returns, its
/// change survives `kill -9`; a torn final record is dropped on open; any other damage makes
/// opening throw `corrupted` with the file untouched; a second process opening the same
/// outbox gets `locked`. With an `SQLiteRepository` as the local store, `Outbox(in:)`
/// (module `RepositoriesSQLite`) keeps the records and the conflicts in tables of the local
/// store's database instead, and each write's change and row commit in one transaction;
/// its files beside the database are listed there.
///
/// Beside its file the journal outbox keeps three more: the conflicts a sync settled until the app
/// acknowledges them (the name with `.conflicts` added, a journal with the same
/// guarantees), the time of the last sync (`.synced`), and the cursor of the remote's change
/// feed up to which the local store holds the remote's changes (`.cursor`, when the remote
/// has a feed), and while it is open, a marker (`.open`): found when the outbox opens, the last
/// session ended without `close()`, and the next pull reads the remote in full. Move or
/// delete them together, with the local store: a cursor kept beside an emptied local store
/// would make the next syncs ask only for what changed since.
///
/// A later change to an ID replaces the queued one (a delete replaces a save), keeping the
/// base it was first made on and taking a new idempotency key. Only an
/// ``OfflineFirstRepository`` writes to it; read it for the UI through
/// ``changes()`` and ``pendingChanges()``.
public final class Outbox<Entity: Codable & Identifiable & Sendable>: Sendable
where Entity.ID: Codable & Sendable {
    package typealias Record = OutboxRecord<Entity>

    /// The file that holds the changes: the outbox's journal, or for an outbox kept in an
    /// SQLite database (`Outbox(in:)` in `RepositoriesSQLite`), the database file.
    public let fileURL: URL

    private let store: any OutboxStorage<Record>
    /// The storage that writes a change and the local row in one transaction, if the outbox
    /// lives in the local store's database.
    let joint: (any OutboxJointStorage<Entity>)?
    /// The conflicts settled and not yet acknowledged, in storage of their own beside the
    /// changes' (a file beside the journal, or a table beside the outbox's).
    let conflicts: ConflictLog<Entity>
    /// Orders read-modify-writes of one ID's record, without ``joint`` storage (whose
    /// transactions order them).
    private let lock = KeyedAsyncLock<Entity.ID>()
    private let revisions: RevisionCounter
    private let signals = ChangeBroadcaster<OutboxChange>()
    /// The pending changes as ``changes()`` gives them, kept with every write to `store`;
    /// unused with ``joint`` storage, which other instances write too: its table is read.
    private let list: Mutex<PendingList<Entity>>
    /// Tells the streams when another instance committed, with ``joint`` storage.
    private let commits = OutboxCommitWatch()
    /// The lock a sync holds when other instances share the outbox.
    private let syncLock: OutboxSyncLock?
    private let syncedAt: Mutex<Date?>
    /// The cursor of the last page of the remote's change feed the local store took.
    let pullCursor: PullCursorFile
    /// Whether the last session ended without closing the outbox; `nil` when a crash cannot
    /// split a write between the outbox and the local store (``joint``).
    let session: SessionMarker?
    /// The file beside the outbox that keeps when a sync last finished.
    private let syncedAtURL: URL
    /// Whether the outbox belongs to a ``SyncGroup`` (see ``OutboxParts/groupOrdered``).
    let groupOrdered: Bool
    private let closed = Mutex(false)

    /// Opens the outbox at `fileURL`, creating it when no file is there.
    ///
    /// Every change is flushed to disk before the write that made it returns.
    ///
    /// Changes queued by an earlier release of the app, whose entity had an older shape,
    /// are upgraded on open with `migrations`, as ``FileRepository`` upgrades its records:
    /// the entity and the base of each change go through the upgrades, and the outbox's
    /// file is rewritten once, atomically. The changes are then sent as the current version.
    ///
    /// ```swift
    /// let outbox = try await Outbox<Todo>(fileURL: outboxURL, migrations: migrations)
    /// ```
    ///
    /// - Parameters:
    ///   - fileURL: the outbox's file; created when absent. One outbox for one local store.
    ///   - lockWait: how long opening waits for another holder of the outbox to let go
    ///     before throwing `locked`; `nil` throws at once.
    ///   - migrations: the entity's current version and the upgrades from older ones; give
    ///     the same migrations as the local store's. By default, version 1.
    /// - Throws: what ``FileRepository/init(fileURL:options:migrations:)`` throws: `locked`,
    ///   `corrupted` (the file untouched), also when a change holds a counter the outbox
    ///   never writes (a revision at `UInt64.max`, a count of tries below zero or at
    ///   `Int.max`: damage or tampering), naming the change; `rejected`; `writtenByNewerVersion` when a
    ///   newer release of the app queued the changes (the file untouched); `decodingFailed`
    ///   naming the change's ID when a queued entity does not decode as its version's
    ///   shape or an upgrade throws (the file untouched: a pending change is never set
    ///   aside, since it would then never be sent).
    public convenience init(
        fileURL: URL, lockWait: Duration? = nil, migrations: Migrations<Entity> = Migrations()
    ) async throws {
        let options = FileRepository<Record>.Options(durability: .everyWrite, lockWait: lockWait)
        let store: FileRepository<Record>
        do {
            store = try await FileRepository<Record>(
                fileURL: fileURL, options: options, migrations: try Self.recordMigrations(migrations))
        } catch {
            throw Self.openingError(error, location: fileURL.path)
        }
        let conflicts: FileRepository<StoredConflict<Entity, Entity.ID>>
        do {
            conflicts = try await FileRepository(
                fileURL: fileURL.appendingPathExtension("conflicts"),
                options: .init(durability: .everyWrite, lockWait: lockWait),
                migrations: try Self.conflictMigrations(migrations))
        } catch {
            try await store.close()
            throw error
        }
        try await self.init(
            parts: OutboxParts(
                records: store, conflicts: conflicts, fileURL: fileURL, sidecars: fileURL, joint: nil,
                marksSessions: true))
    }

    /// Opens an outbox made of `parts`. On failure every part is closed.
    package init(parts: OutboxParts<Entity>) async throws {
        fileURL = parts.fileURL
        groupOrdered = parts.groupOrdered
        store = parts.records
        joint = parts.joint
        syncLock = parts.syncLock
        syncedAtURL = parts.sidecars.appendingPathExtension("synced")
        conflicts = ConflictLog(store: parts.conflicts)
        do {
            let records: [Record]
            do {
                records = try await store.fetchAll()
            } catch {
                throw Self.openingError(error, location: parts.fileURL.path)
            }
            revisions = RevisionCounter(after: records.map(\.revision).max() ?? 0)
            list = Mutex(PendingList(parts.joint == nil ? records.map(\.change) : []))
            syncedAt = Mutex(try Self.readSyncedAt(parts.sidecars.appendingPathExtension("synced")))
            pullCursor = try PullCursorFile(url: parts.sidecars.appendingPathExtension("cursor"))
            session =
                parts.marksSessions
                ? try SessionMarker(
                    url: parts.sidecars.appendingPathExtension("open"), shared: parts.joint != nil)
                : nil
        } catch {
            // Opening failed half way: let go of the outbox's storage, so a fix and a retry can
            // open it. The error that stopped the opening is the one to tell.
            do { try await parts.conflicts.close() } catch {}
            do { try await store.close() } catch {}
            throw error
        }
        if joint != nil {
            // The counter in the file is raised to this outbox's highest revision at once: the
            // first change of another outbox sharing it (a group's) then comes after its changes.
            do {
                _ = try await latestRevision()
            } catch {
                do { try await parts.conflicts.close() } catch {}
                do { try await store.close() } catch {}
                throw error
            }
        }
    }

    /// The highest revision handed out, by any instance or (in a ``SyncGroup``) any member
    /// sharing the counter in the file: every change made up to it is committed. The file's
    /// counter is raised to this instance's highest first.
    func latestRevision() async throws -> UInt64 {
        guard let joint else { return revisions.highest }
        let (_, highest) = try await joint.edit([], revisionsAfter: revisions.highest) { _, _ in
            OutboxEdit(result: ())
        }
        revisions.raise(to: highest)
        return highest
    }

    /// Whether ``close()`` was called.
    var isClosed: Bool { closed.withLock { $0 } }

    /// The migrations of the outbox's records, over those of the entity.
    package static func recordMigrations(_ migrations: Migrations<Entity>) throws -> Migrations<Record> {
        try migrations.nested(in: OutboxRecordNesting<Entity>.self)
    }

    /// The migrations of the kept conflicts, over those of the entity.
    package static func conflictMigrations(_ migrations: Migrations<Entity>) throws
        -> Migrations<StoredConflict<Entity, Entity.ID>>
    {
        try migrations.nested(in: StoredConflictNesting<Entity>.self)
    }

    /// What opening the storage of the records throws for `error`: a counter the outbox never
    /// writes is damage (`corrupted`), and a change that does not decode is never set aside.
    package static func openingError(_ error: any Error, location: String) -> any Error {
        guard var error = error as? RepositoryError, error.code == .decodingFailed else { return error }
        if let damage = error.underlying as? OutboxCounterDamage {
            var corrupted = RepositoryError.corrupted(
                "A change in the outbox, \(error.record ?? "a record"), holds \(damage), which the "
                    + "outbox never writes: the file was damaged or changed by something else",
                location: error.location ?? location, underlying: damage)
            corrupted.record = error.record
            return corrupted
        }
        // The file store's advice to set the record aside does not apply: a change set
        // aside would never be sent.
        error.recovery =
            "Fix the upgrade in the Migrations given to the Outbox so it reads this change's entity, "
            + "then open again; a pending change is never set aside, since it would then never be sent. "
            + "The file was left untouched"
        return error
    }

    /// When a sync last finished without an error, kept across restarts; `nil`: never.
    public var lastSyncedAt: Date? { syncedAt.withLock { $0 } }

    /// Notes that a sync finished at `date`, in a file beside the outbox (written whole,
    /// then renamed over the old one).
    func noteSynced(at date: Date) throws {
        let text = String(date.timeIntervalSinceReferenceDate)
        do {
            try Data(text.utf8).write(to: syncedAtURL, options: .atomic)
        } catch {
            throw RepositoryError(
                .unavailable, reason: "The time of the last sync could not be written", recovery: nil,
                location: syncedAtURL.path, underlying: error)
        }
        syncedAt.withLock { $0 = date }
    }

    /// Runs a sync's `body`, one at a time across the instances that share the outbox: holding
    /// the sync lock, with the feed's cursor and the time of the last sync read again, since
    /// another instance's sync may have moved them. Without a sync lock, only this instance
    /// syncs the outbox, and `body` runs as it is.
    ///
    /// - Throws: `locked` when another instance syncs past the lock's wait; what `body` throws.
    func whileSyncing<T>(_ body: () async throws -> T) async throws -> T {
        guard let syncLock else { return try await body() }
        return try await syncLock.holding {
            try pullCursor.reload()
            let date = try Self.readSyncedAt(syncedAtURL)
            syncedAt.withLock { $0 = date }
            return try await body()
        }
    }

    private static func readSyncedAt(_ url: URL) throws -> Date? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        let text = String(decoding: try Data(contentsOf: url), as: UTF8.self)
        guard let seconds = TimeInterval(text) else {
            throw RepositoryError(
                .corrupted, reason: "The time of the last sync is not a number: \(text.prefix(40))",
                recovery: "Delete the file; the next sync writes it again", location: url.path)
        }
        return Date(timeIntervalSinceReferenceDate: seconds)
    }

    /// Closes the outbox's file and releases its lock; later calls throw `closed`.
    public func close() async throws {
        closed.withLock { $0 = true }
        var failure: (any Error)?
        do { try await conflicts.close() } catch { failure = error }
        do { try await store.close() } catch { failure = failure ?? error }
        if let failure { throw failure }
        try session?.remove()
    }

    /// Every pending change, in the order their IDs were first changed.
    ///
    /// - Throws: `closed` after ``close()``.
    public func changes() async throws -> [PendingChange<Entity>] {
        try await current { $0.changes }
    }

    /// The pending change of `id`, if there is one.
    public func change(for id: Entity.ID) async throws -> PendingChange<Entity>? {
        try await record(of: id)?.change
    }

    /// The record of `id`, if there is one.
    private func record(of id: Entity.ID) async throws -> Record? {
        try await store.fetch(ids: [id]).first
    }

    /// The pending changes now, then again after every change to them: for a badge, or a
    /// "3 changes waiting" line. The stream ends when the outbox cannot be read (closed).
    public func pendingChanges() -> AsyncStream<[PendingChange<Entity>]> {
        defer { watchOtherInstances() }
        return signals.readOnEverySignal { [self] in try await changes() }
    }

    /// The conflicts kept, now, then after every change to them, by this instance or (with
    /// ``joint`` storage) another one.
    func conflictUpdates() -> AsyncStream<[SyncConflict<Entity>]> {
        defer { watchOtherInstances() }
        return conflicts.updates()
    }

    /// With ``joint`` storage, which other instances write too, starts the task that signals
    /// their commits to the streams subscribed (of the pending changes, of the snapshots, of
    /// the conflicts), unless it runs.
    private func watchOtherInstances() {
        guard let joint else { return }
        commits.keepWatching(
            while: { [signals, conflicts] in signals.subscriberCount + conflicts.subscriberCount > 0 },
            read: { try await joint.othersCommits() },
            signal: { [signals, conflicts] in
                signals.send(.elsewhere)
                conflicts.publish()
            })
    }

    /// `read` of the pending changes as they are now, without reading the file's records:
    /// the list kept beside them.
    ///
    /// - Throws: `closed` after ``close()``.
    func current<T>(_ read: (PendingList<Entity>) -> T) async throws -> T {
        guard joint == nil else {
            // Shared with other instances: what the table holds now.
            return read(PendingList(try await store.fetchAll().map(\.change)))
        }
        // The store throws `closed` once the outbox is closed; the list is never emptied.
        _ = try await store.count()
        return list.withLock { read($0) }
    }

    /// A signal after every change to the pending changes that a write of the offline-first
    /// repository did not make (a sync's, a retry's, a discard's: `.other`), and after every
    /// commit another instance made to a shared outbox's file (`.elsewhere`, which may have
    /// changed the local rows too): that write tells its snapshot streams itself.
    func changesBesidesWrites() -> AsyncStream<OutboxChange> {
        // Unbounded: a commit elsewhere must not be folded into a later change here.
        let signals = signals.subscribe()
        defer { watchOtherInstances() }
        return AsyncStream { continuation in
            let task = Task {
                for await change in signals where change != .recorded { continuation.yield(change) }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    // MARK: For the offline-first repository

    /// The records, in order.
    func records() async throws -> [Record] {
        try await store.fetchAll()
    }

    /// The records of `ids` that exist.
    func records(_ ids: [Entity.ID]) async throws -> [Entity.ID: Record] {
        Dictionary(try await store.fetch(ids: ids).map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
    }

    /// What the outbox held for some IDs before a change, so the change can be undone.
    struct Undo: Sendable {
        fileprivate var previous: [Record]
        fileprivate var added: [Entity.ID]
    }

    /// Records a change to each ID in `changes` (an entity to save, or `nil` to delete), as
    /// one durable batch. A queued change to the same ID is replaced, keeping its base;
    /// for the others the base is taken from `localBases` (the local copies, which hold the
    /// remote's version while no change is pending).
    ///
    /// With `local` (an outbox whose ``joint`` storage joins the local store's writes), the
    /// local store's change is written in the same transaction as the records: the two are
    /// never apart, and there is nothing to undo.
    func record(
        _ changes: [(id: Entity.ID, entity: Entity?)], localBases: [Entity.ID: Entity],
        applying local: LocalChange<Entity>? = nil
    ) async throws -> Undo {
        let ids = changes.map(\.id)
        let location = fileURL.path
        let groupOrdered = groupOrdered
        return try await edit(ids, telling: .recorded) { existing, highest in
            // A version is always numbered above the one it replaces, whatever counter another
            // instance took it from (one opened before the file had its group's): an
            // acknowledgement of the old one then never takes the new one for it.
            highest = max(highest, existing.values.map(\.revision).max() ?? 0)
            let fresh = ids.filter { existing[$0] == nil }
            let now = Date()
            var latest: [Entity.ID: Record] = [:]
            for change in changes {
                var record = Record(
                    id: change.id, entity: change.entity,
                    base: existing[change.id].map(\.base) ?? localBases[change.id],
                    key: IdempotencyKey.make(),
                    revision: try Self.revision(after: &highest, location: location),
                    attempts: 0, lastError: nil, rejected: false, madeAt: now)
                // In a group, a change keeps the place of its ID's first pending change; one
                // first made before the outbox joined stays before every change made since.
                if groupOrdered {
                    record.firstRevision = existing[change.id].map(\.firstRevision) ?? record.revision
                }
                if let replaced = existing[change.id] {
                    record.possiblyApplied = Self.possiblyApplied(after: replaced)
                    record.baseUpgraded = replaced.baseUpgraded
                }
                latest[change.id] = record
            }
            var seen = Set<Entity.ID>()
            let batch = ids.filter { seen.insert($0).inserted }.compactMap { latest[$0] }
            return OutboxEdit(
                saving: batch, local: local, result: Undo(previous: Array(existing.values), added: fresh))
        }
    }

    /// The versions the remote may hold once `replaced` is replaced by a later change: the
    /// ones it may already have held, and `replaced`'s own when it went out unanswered.
    private static func possiblyApplied(after replaced: Record) -> [PossiblyApplied<Entity>] {
        var versions = replaced.possiblyApplied
        if replaced.sending {
            versions.append(
                PossiblyApplied(
                    entity: replaced.entity, key: replaced.sentCondition.map { _ in replaced.key },
                    condition: replaced.sentCondition))
        }
        return Array(versions.suffix(Record.possiblyAppliedLimit))
    }

    /// Notes durably, before a request carrying `records` leaves, that the remote may apply
    /// them: a change replaced after this, before the answer comes, is kept among the
    /// versions the remote may hold (``StoredChange/possiblyApplied``).
    ///
    /// A record a later change replaced since the sync read it still goes out in the
    /// request: its version is added to the later change's ``StoredChange/possiblyApplied``.
    ///
    /// `key` is an unconditional request's idempotency key, kept with each change
    /// (``StoredChange/sentKey``) until the answer comes, so a retry sends that request again
    /// under it; `nil` for a conditional one, which a retry sends on the version it then reads.
    func markSending(_ records: [Record], underKey key: String?, condition: SentCondition? = nil) async throws
    {
        try await edit(records.map(\.id), telling: nil) { current, _ in
            var changed: [Record] = []
            for record in records {
                guard var now = current[record.id] else { continue }
                if now.revision == record.revision {
                    guard !now.sending || now.sentKey != key || now.sentCondition != condition else {
                        continue
                    }
                    now.sending = true
                    now.sentKey = key
                    now.sentCondition = condition
                } else {
                    now.possiblyApplied = Array(
                        (now.possiblyApplied + [
                            PossiblyApplied(
                                entity: record.entity, key: condition.map { _ in record.key },
                                condition: condition)
                        ])
                        .suffix(Record.possiblyAppliedLimit))
                }
                changed.append(now)
            }
            return OutboxEdit(saving: changed, result: ())
        }
    }

    /// Puts back what ``record(_:localBases:applying:)`` replaced: the local store could not
    /// take the change.
    func undo(_ undo: Undo) async throws {
        try await edit(undo.previous.map(\.id) + undo.added) { _, _ in
            OutboxEdit(saving: undo.previous, erasing: undo.added, result: ())
        }
    }

    /// Removes the changes the remote took, unless a later change replaced one meanwhile;
    /// that one stays, now based on what the remote said it stored (`echoes`, by ID: its
    /// answer's echo, ``WriteEcho``), or else on what was sent.
    func acknowledge(_ sent: [Record], echoes: [Entity.ID: Entity] = [:]) async throws {
        let groupOrdered = groupOrdered
        try await edit(sent.map(\.id)) { current, _ in
            var done: [Entity.ID] = []
            var rebased: [Record] = []
            for record in sent {
                guard let now = current[record.id] else { continue }
                if now.revision == record.revision {
                    done.append(record.id)
                } else {
                    // The remote holds what was sent: the later change is made on it, and no
                    // version before it is still in question.
                    var later = now
                    later.base = record.entity.map { echoes[record.id] ?? $0 }
                    later.baseUpgraded = false
                    later.possiblyApplied = []
                    // What is left pending is a change of its own, begun after the one
                    // acknowledged: its place is just after it (a lower bound of every edit
                    // it holds, the first of which may be long before its last).
                    if groupOrdered { later.firstRevision = record.revision + 1 }
                    rebased.append(later)
                }
            }
            return OutboxEdit(saving: rebased, erasing: done, result: ())
        }
    }

    /// Notes a failed try of each change in `sent` that is still current: `rejected` stops
    /// it being tried again. A change already rejected is left as it is by a failure that
    /// does not reject (a transient one met later in the same sync).
    ///
    /// - Throws: `corrupted` naming the change when its count of tries cannot grow (it is
    ///   at `Int.max - 1`, which only damage or tampering reaches); nothing is written then.
    func fail(_ sent: [Record], with error: any Error, rejected: Bool) async throws {
        let location = fileURL.path
        let error = StoredChangeError(error)
        try await update(sent) { record in
            // A change already refused stays refused, with its error, whatever fails later.
            if record.rejected && !rejected { return }
            guard let attempts = OutboxCounters.attempts(after: record.attempts) else {
                var damage = RepositoryError.corrupted(
                    "The count of tries of the change to \(record.id) in the outbox, \(record.attempts), "
                        + "cannot grow: only damage or tampering reaches it",
                    location: location)
                damage.record = "\(record.id)"
                throw damage
            }
            record.attempts = attempts
            record.lastError = error
            record.rejected = rejected
            // A refusal is an answer: a later try is a request of its own. A transient failure
            // is none: the next try sends the same request again.
            if rejected {
                record.sentKey = nil
                record.sentCondition = nil
            }
        }
    }

    /// Notes on each pending change of `held` the error that says which change it waits for
    /// (``RepositoryError/Code/heldBack``, from a ``SyncGroup``), without counting a try: it
    /// was not sent. A change replaced since (another revision), a rejected one, or one that
    /// already shows that error, is left as it is.
    func hold(_ held: [Entity.ID: (revision: UInt64, error: RepositoryError)]) async throws {
        guard !held.isEmpty else { return }
        let errors = held.mapValues { (revision: $0.revision, error: StoredChangeError($0.error)) }
        try await edit(Array(held.keys)) { current, _ in
            var changed: [Record] = []
            for (id, (revision, error)) in errors {
                guard var record = current[id], record.revision == revision, !record.rejected,
                    record.lastError?.code != error.code || record.lastError?.reason != error.reason
                else { continue }
                record.lastError = error
                changed.append(record)
            }
            return OutboxEdit(saving: changed, result: ())
        }
    }

    /// Notes that the remote answered the request that carried `records` with a refusal (a
    /// batch refused, a condition that no longer held): the refusal is an answer, so no
    /// retry is that request again. Each change goes out next in a request of its own, under
    /// its own key: sent again under the refused request's key, the server would answer it
    /// with that refusal, which may be another change's.
    ///
    /// - Returns: the records as they now stand, by ID; one a later change replaced is not
    ///   among them.
    ///
    /// `rekey` gives each change a new key too: after a refused create, whose key the server
    /// answered with the refusal, a save sent under it would be answered with that refusal.
    @discardableResult
    func requestRefused(_ records: [Record], rekey: Bool = false) async throws -> [Entity.ID: Record] {
        let updated = try await update(records) { current in
            current.sentCondition = nil
            current.sentKey = nil
            if rekey { current.key = IdempotencyKey.make() }
        }
        return Dictionary(updated.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
    }

    /// Notes the answer to the unanswered conditional request that carried an earlier
    /// version of `id` (the one under the change key `key`): `applied`, the remote may hold
    /// that version (kept among ``StoredChange/possiblyApplied``, no longer to be sent);
    /// refused, it never held it (forgotten).
    func earlierRequestAnswered(of id: Entity.ID, key: String, applied: Bool) async throws {
        try await edit([id], telling: nil) { current, _ in
            guard var record = current[id] else { return OutboxEdit(result: ()) }
            if applied {
                for index in record.possiblyApplied.indices where record.possiblyApplied[index].key == key {
                    record.possiblyApplied[index].key = nil
                    record.possiblyApplied[index].condition = nil
                }
            } else {
                record.possiblyApplied.removeAll { $0.key == key }
            }
            return OutboxEdit(saving: [record], result: ())
        }
    }

    /// Replaces the entity a current change saves with a merge's result: a new change, with
    /// a new key (a server that saw the old key would answer with the old reply and drop the
    /// merge), made on the remote's version it was merged with.
    ///
    /// The local store takes the merge too (`local`), in the same transaction with ``joint``
    /// storage, else after the outbox; neither when a later change replaced the record.
    func replaceEntity(
        of record: Record, with entity: Entity, mergedWith remote: Entity?,
        savingIn local: some Repository<Entity, Entity.ID>
    ) async throws -> Record? {
        try await update([record], applying: .save(entity), to: local) { current in
            if current.sending {
                current.possiblyApplied = Self.possiblyApplied(after: current)
                current.sending = false
                current.sentKey = nil
                current.sentCondition = nil
            }
            current.entity = entity
            current.base = remote
            current.baseUpgraded = false
            current.key = IdempotencyKey.make()
        }.first
    }

    /// Makes a rejected change pending again, with its tries counted from zero.
    func retry(_ id: Entity.ID) async throws {
        try await edit([id]) { current, _ in
            guard var record = current[id] else { return OutboxEdit(result: ()) }
            record.rejected = false
            record.attempts = 0
            record.lastError = nil
            return OutboxEdit(saving: [record], result: ())
        }
    }

    /// Removes the change `record` if it is still current (the remote's version won), putting
    /// the remote's version in the local store with `restore`: in one transaction with
    /// ``joint`` storage, else first; neither when a later change replaced the record.
    func drop(
        _ record: Record, restoring restore: LocalChange<Entity>, in local: some Repository<Entity, Entity.ID>
    ) async throws {
        try await edit([record.id], on: local, localFirst: true) { current, _ in
            guard current[record.id]?.revision == record.revision else { return OutboxEdit(result: ()) }
            return OutboxEdit(erasing: [record.id], local: restore, result: ())
        }
    }

    /// Removes the change of `id`, whatever it is, restoring the local copy with `restore`:
    /// in one transaction with ``joint`` storage, else first, and nothing is removed when it
    /// throws.
    func discard(_ id: Entity.ID, restore: LocalChange<Entity>, on local: some Repository<Entity, Entity.ID>)
        async throws
    {
        try await edit([id], on: local, localFirst: true) { _, _ in
            OutboxEdit(erasing: [id], local: restore, result: ())
        }
    }

    /// Changes the records of `sent` that are still current with `change`, and writes them;
    /// with `localChange` (for one record only), applies it to `local` too when the record was
    /// still current (in the same transaction with ``joint`` storage, else after the record).
    ///
    /// - Returns: the records changed.
    @discardableResult
    private func update(
        _ sent: [Record], applying localChange: LocalChange<Entity>? = nil,
        to local: (any Repository<Entity, Entity.ID>)? = nil,
        _ change: @escaping @Sendable (inout Record) throws -> Void
    ) async throws -> [Record] {
        precondition(localChange == nil || sent.count == 1, "A local change goes with one record")
        return try await edit(sent.map(\.id), on: local) { current, _ in
            let updated = try sent.compactMap { record -> Record? in
                guard var now = current[record.id], now.revision == record.revision else { return nil }
                try change(&now)
                return now
            }
            return OutboxEdit(saving: updated, local: updated.isEmpty ? nil : localChange, result: updated)
        }
    }

    // MARK: Reading and writing records

    /// Reads the records of `ids` and writes what `body` makes of them, as one step no other
    /// writer of these records interleaves with, then tells the streams (`telling`).
    ///
    /// With ``joint`` storage, the step is one transaction of the database, whichever process
    /// writes it too, and holds the edit's local change. Without it, the IDs' lock orders the
    /// steps (only this instance writes the journal), the records are written, then the local
    /// change is applied to `local` (or first, with `localFirst`: a discard's restore, whose
    /// failure must leave the change queued).
    ///
    /// `body` may run and its edit then fail: it computes, it does not act.
    @discardableResult
    private func edit<T: Sendable>(
        _ ids: [Entity.ID], on local: (any Repository<Entity, Entity.ID>)? = nil, localFirst: Bool = false,
        telling change: OutboxChange? = .other,
        _ body: @escaping @Sendable ([Entity.ID: Record], inout UInt64) throws -> OutboxEdit<Entity, T>
    ) async throws -> T {
        defer { if let change { publish(change) } }
        if let joint {
            let (result, highest) = try await joint.edit(ids, revisionsAfter: revisions.highest, body)
            revisions.raise(to: highest)
            return result
        }
        return try await lock.withLock(.keys(Set(ids))) {
            let current = try await records(ids)
            let edit = try revisions.handingOut { try body(current, &$0) }
            if let change = edit.local, localFirst, let local { try await change.apply(to: local) }
            if !edit.saving.isEmpty { try await persist(edit.saving) }
            if !edit.erasing.isEmpty { try await erase(edit.erasing) }
            if let change = edit.local, !localFirst, let local { try await change.apply(to: local) }
            return edit.result
        }
    }

    /// The revision after `highest`, which it becomes.
    ///
    /// - Throws: `corrupted` when the revisions are used up, which only a damaged or forged
    ///   revision on disk (just below `UInt64.max`) makes happen; nothing is written then.
    private static func revision(after highest: inout UInt64, location: String) throws -> UInt64 {
        guard let revision = OutboxCounters.revision(after: highest) else {
            throw RepositoryError.corrupted(
                "The outbox's revisions are used up: a change on disk holds one just below UInt64.max, "
                    + "which only damage or tampering reaches",
                location: location)
        }
        highest = revision
        return revision
    }

    /// Writes `records` to the file, then to the list the UI reads.
    private func persist(_ records: [Record]) async throws {
        do {
            try await store.save(contentsOf: records)
        } catch {
            await relist(records.map(\.id))
            throw error
        }
        list.withLock { $0.put(records.map(\.change)) }
    }

    /// Removes the records of `ids` from the file, then from the list the UI reads.
    private func erase(_ ids: [Entity.ID]) async throws {
        do {
            try await store.delete(ids: ids)
        } catch {
            await relist(ids)
            throw error
        }
        list.withLock { $0.remove(ids) }
    }

    /// Makes the list the UI reads say what the storage holds for `ids`, after a write of
    /// them that failed and may have left the storage changed or not.
    ///
    /// Only those IDs: their caller holds their lock, so nothing else changes them meanwhile,
    /// while writes of other IDs go on and update the list themselves. A list made again
    /// whole from a read taken earlier would undo what those did since (a change acknowledged
    /// and removed would come back to the badge).
    private func relist(_ ids: [Entity.ID]) async {
        do {
            let stored = try await records(ids)
            list.withLock { list in
                list.remove(ids.filter { stored[$0] == nil })
                list.put(ids.compactMap { stored[$0]?.change })
            }
        } catch {
            // The storage cannot be read (closed): neither can the list, which throws the same.
        }
    }

    /// Tells the streams of ``pendingChanges()`` to read the changes again (on their own
    /// tasks, when their consumers are ready: a write does not wait for them).
    private func publish(_ change: OutboxChange = .other) { signals.send(change) }
}

/// Who changed the outbox: a write of the offline-first repository, which tells its
/// snapshot streams itself, or anything else.
enum OutboxChange: Sendable, Equatable {
    /// A write recorded its change.
    case recorded
    /// A sync, a retry, a discard or an undo changed the changes.
    case other
    /// Another instance of a shared outbox committed to its file: the changes and the local
    /// rows may both differ.
    case elsewhere
}

/// The highest revision this instance handed out or read, continuing after the highest one
/// on disk.
private final class RevisionCounter: Sendable {
    private let last: Mutex<UInt64>
    init(after highest: UInt64) { last = Mutex(highest) }

    /// The highest revision so far.
    var highest: UInt64 { last.withLock { $0 } }

    /// Runs `body` on the highest revision, which it raises for each one it hands out; no
    /// other call hands one out meanwhile.
    func handingOut<T>(_ body: (inout UInt64) throws -> T) rethrows -> T {
        try last.withLock { try body(&$0) }
    }

    /// Raises the highest revision to `revision`, one another instance handed out.
    func raise(to revision: UInt64) {
        last.withLock { $0 = max($0, revision) }
    }
}
