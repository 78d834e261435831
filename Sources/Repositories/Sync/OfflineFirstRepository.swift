import Foundation
import Synchronization

/// A remote with a local store and an ``Outbox`` beside it, for apps that must keep
/// working offline, writes included: every write returns once the device has it, and
/// ``sync()`` sends the changes to the remote and brings the remote's back.
///
/// ```swift
/// let outbox = try await Outbox<Note>(fileURL: dir.appending(path: "notes.outbox"))
/// let local = try await FileRepository<Note>(fileURL: dir.appending(path: "notes.store"))
/// let notes = api.offlineFirst(local: local, outbox: outbox, conflicts: .lastWriterWins)
///
/// try await notes.save(note)            // returns once the local store and the outbox hold it
/// try await notes.sync()                // pushes every pending change in order, then pulls
/// try await notes.status(of: note.id)   // .synced, .pending(attempts:lastError:), .rejected(error)
/// ```
///
/// ## Writes
///
/// A write is recorded in the outbox and applied to the local store at once; it returns
/// when both are durable and never waits for the network. When either refuses it, the
/// other is undone and the error thrown: nothing half-written. A crash between the two
/// loses nothing acknowledged: before its first call, the repository applies every change
/// the outbox holds to the local store again (they are idempotent), and a local change the
/// outbox lacks was never acknowledged.
///
/// ## Reads
///
/// Reads are answered by the local store at once: the last known remote state with this
/// device's pending changes on top.
///
/// ## Sync
///
/// ``sync()`` runs one at a time. It pushes the pending changes in the order their IDs were
/// first changed (a later change to an ID replaces the queued one; a delete replaces a
/// save), sending runs of saves or deletes through the remote's batch calls, each under an
/// ``IdempotencyKey`` that stays the same on every try. Before sending, it reads the
/// remote's current copies: one that changed since the version a change was made on is a
/// conflict, settled by the ``ConflictPolicy``. Then it pulls: the remote's collection
/// replaces the local one, except the entities with a pending change, which are never
/// overwritten or deleted.
///
/// | what fails | what happens |
/// |---|---|
/// | the remote is unreachable, slow or busy (`unavailable`, `timedOut`, `circuitOpen`, `locked`) | the changes not sent stay pending with the try counted and the error kept (``SyncStatus/pending(attempts:lastError:)``); `sync()` throws it; the next sync tries again |
/// | the remote refuses a change (any other error: a 4xx, `conflict`, `rejected`) | that change becomes ``SyncStatus/rejected(_:)`` and is not tried again until ``retry(id:)``, or dropped by ``discard(id:)``, which restores the remote's version here; the other changes go on |
/// | the pull | `sync()` throws its error; the pushed changes stay acknowledged |
///
/// With `automaticSync` (``AutomaticSync``), a sync starts by itself after each write, again
/// with backoff after a transient failure, and on an interval if it has one; its failures
/// are kept as above and in ``lastSyncError``. ``stopAutomaticSync()`` ends it.
public struct OfflineFirstRepository<Remote: Repository, Local: Repository>: Repository
where
    Local.Entity == Remote.Entity, Local.ID == Remote.ID, Remote.Entity: Codable,
    Remote.ID: Codable
{
    /// The remote's entity.
    public typealias Entity = Remote.Entity
    /// The remote's ID.
    public typealias ID = Remote.ID

    /// The remote, the system of record the changes are sent to.
    public let remote: Remote
    /// The local store every read is answered from.
    public let local: Local
    /// The durable queue of changes not sent yet.
    public let outbox: Outbox<Entity>
    /// How a conflict with a remote that changed meanwhile is settled.
    public let conflictPolicy: ConflictPolicy<Entity>
    /// The conditions that select the part of the remote this repository syncs, or `nil` for
    /// the whole collection (see ``init(remote:local:outbox:subset:conflicts:automaticSync:)``).
    public var subset: Query<Entity>? { syncedSubset?.query }
    let syncedSubset: SyncSubset<Entity>?
    let engine: SyncEngine<Entity>
    /// The group this repository syncs with, and what its changes depend on; `nil` when it
    /// syncs alone.
    let membership: SyncGroupMembership<Entity>?

    /// The group whose ``SyncGroup/sync()`` sends this repository's changes with its other
    /// members', or `nil` when this repository syncs alone.
    public var group: SyncGroup? { membership?.group }

    /// Puts `local` and `outbox` beside `remote`.
    ///
    /// - Parameters:
    ///   - remote: where the changes go and the remote state comes from.
    ///   - local: answers every read; must be a store this device owns, never an API.
    ///   - outbox: keeps the changes not sent yet; one outbox for one local store.
    ///   - conflicts: how a remote that changed since a change was made is settled; by
    ///     default field by field, the remote's value winning a field both sides changed
    ///     (``ConflictPolicy/mergeFields(tie:)``).
    ///   - automaticSync: when a sync starts by itself: after every write (the default),
    ///     after failures with backoff, and on an interval if it has one; `nil`: only when
    ///     ``sync()`` is called.
    public init(
        remote: Remote, local: Local, outbox: Outbox<Entity>,
        conflicts: ConflictPolicy<Entity> = .mergeFields(tie: .remote),
        automaticSync: AutomaticSync? = .afterWrites
    ) {
        self.init(
            remote: remote, local: local, outbox: outbox, syncedSubset: nil, conflicts: conflicts,
            automaticSync: automaticSync, membership: nil)
    }

    /// Puts `local` and `outbox` beside `remote` as a member of `group`, whose sync sends this
    /// repository's changes after the changes of the group's members they depend on
    /// (`dependsOn`). `RepositoriesSQLite`'s `offlineFirst(local:group:conflicts:dependsOn:automaticSync:)`
    /// makes the outbox in the group's database and calls this.
    ///
    /// - Throws: `rejected` when `group` has a member of this entity type, or when `outbox`
    ///   is kept in another file than the group's.
    package init(
        remote: Remote, local: Local, outbox: Outbox<Entity>, group: SyncGroup,
        conflicts: ConflictPolicy<Entity>,
        dependsOn: @escaping @Sendable (PendingChange<Entity>) -> [SyncDependency],
        automaticSync: AutomaticSync?
    ) throws {
        self.init(
            remote: remote, local: local, outbox: outbox, syncedSubset: nil, conflicts: conflicts,
            automaticSync: automaticSync,
            membership: SyncGroupMembership(group: group, dependsOn: dependsOn))
        try group.join(SyncGroupMemberOf(self))
    }

    /// Puts `local` and `outbox` beside the part of `remote` that meets `subset`'s conditions:
    /// partial sync, for a device that needs only its own share of a large collection.
    ///
    /// ```swift
    /// let mine = try api.offlineFirst(
    ///     local: local, outbox: outbox, subset: Query<Task>().where(\.owner == me))
    /// ```
    ///
    /// A pull brings only the entities that meet the conditions: through the remote's change
    /// feed, asked for the subset (``ChangeFeedRepository/changes(since:limit:in:)``: an API
    /// whose feed takes the conditions as parameters sends only the subset, and the IDs of
    /// the entities that changed outside it), else by ``Repository/fetch(_:)`` with the
    /// subset's conditions. An entity that stops meeting them on the remote is removed here at
    /// the next pull, unless it has a pending change. Every page is checked on the device
    /// too, so a remote that ignores the conditions costs more and is never wrong.
    ///
    /// Writes are not limited: an entity saved here outside the subset is sent as any other,
    /// and leaves the local store once the remote confirmed it.
    ///
    /// The feed's cursor is kept with the subset it was read for: opening the same outbox with
    /// other conditions (another user signed in) reads the new subset in full once.
    ///
    /// - Parameters:
    ///   - remote: where the changes go and the remote state comes from.
    ///   - local: answers every read; must be a store this device owns, never an API.
    ///   - outbox: keeps the changes not sent yet; one outbox for one local store.
    ///   - subset: conditions on declared fields (``Query/where(_:)``) and nothing else.
    ///   - conflicts: how a remote that changed since a change was made is settled.
    ///   - automaticSync: when a sync starts by itself; `nil`: only when ``sync()`` is called.
    /// - Throws: ``RepositoryError/Code/rejected`` when `subset` holds a filter closure, sort
    ///   keys, an offset or a limit, or a condition on a field the entity does not declare.
    public init(
        remote: Remote, local: Local, outbox: Outbox<Entity>, subset: Query<Entity>,
        conflicts: ConflictPolicy<Entity> = .mergeFields(tie: .remote),
        automaticSync: AutomaticSync? = .afterWrites
    ) throws {
        let subset = try SyncSubset(subset)
        self.init(
            remote: remote, local: local, outbox: outbox, syncedSubset: subset, conflicts: conflicts,
            automaticSync: automaticSync, membership: nil)
    }

    private init(
        remote: Remote, local: Local, outbox: Outbox<Entity>, syncedSubset: SyncSubset<Entity>?,
        conflicts: ConflictPolicy<Entity>, automaticSync: AutomaticSync?,
        membership: SyncGroupMembership<Entity>?
    ) {
        requireCopy(Local.self, as: "local store", of: "OfflineFirstRepository")
        if let joint = outbox.joint {
            precondition(
                joint.joins(local),
                """
                OfflineFirstRepository was given an outbox kept in another store's database (\(outbox.fileURL.path)) \
                than its local store, \(Local.self). Its writes go into that database together with the \
                local rows, so it serves the store it was made in only: pass the same SQLiteRepository \
                given to Outbox(in:) as the local store, or open an Outbox(fileURL:).
                """)
        }
        self.remote = remote
        self.local = local
        self.outbox = outbox
        self.syncedSubset = syncedSubset
        self.conflictPolicy = conflicts
        self.engine = SyncEngine(automatic: automaticSync)
        self.membership = membership
    }

    /// The error of the last sync that failed, or `nil` after one that worked.
    public var lastSyncError: RepositoryError? { engine.lastSyncError }

    /// Stops syncing by itself, for every copy of this repository: the interval loop ends, a
    /// wait before the next try ends at once (an automatic sync under way is cancelled; its
    /// changes stay pending), and writes no longer start a sync. ``sync()`` still works when
    /// called.
    public func stopAutomaticSync() {
        engine.stop()
    }

    /// Applies the outbox's changes to the local store once, before the first call (a crash
    /// may have stopped a write between the two).
    func prepared() async throws {
        engine.startInterval { [self] in try await sync() }
        engine.startWatching { [self] in try await sync() }
        try await engine.prepareOnce { [outbox, local] in
            // A joint outbox and the local store are written in one transaction: nothing to
            // apply again, and another process may be writing both meanwhile.
            guard outbox.joint == nil else { return }
            var saves: [Entity] = []
            var deletes: [ID] = []
            for record in try await outbox.records() {
                if let entity = record.entity { saves.append(entity) } else { deletes.append(record.id) }
            }
            if !saves.isEmpty { try await local.save(contentsOf: saves) }
            if !deletes.isEmpty { try await local.delete(ids: deletes) }
        }
    }

    // MARK: Reading

    /// The local copy of `id`: the remote's last known version, or this device's change.
    public func fetch(id: ID) async throws -> Entity? {
        try await prepared()
        return try await local.fetch(id: id)
    }

    /// Every local entity, in the local store's order.
    public func fetchAll() async throws -> [Entity] {
        try await prepared()
        return try await local.fetchAll()
    }

    /// The local copies of `ids`.
    public func fetch(ids: [ID]) async throws -> [Entity] {
        try await prepared()
        return try await local.fetch(ids: ids)
    }

    /// The local entities that match `query`.
    public func fetch(_ query: Query<Entity>) async throws -> [Entity] {
        try await prepared()
        return try await local.fetch(query)
    }

    /// How many entities the local store holds.
    public func count() async throws -> Int {
        try await prepared()
        return try await local.count()
    }

    // MARK: Writing

    /// Records `changes` in the outbox and applies `change` to the local store, the two at
    /// once (each waits for its own flush to disk, so a write costs about one flush, not two);
    /// when one side fails, the other is undone and the error thrown. An outbox kept in the
    /// local store's database (`Outbox(in:)`) writes both in one transaction instead, with
    /// nothing to undo.
    ///
    /// Cancellation cannot split a write: a caller cancelled before the write holds its IDs
    /// gets `CancellationError` with nothing written; once it holds them, the write runs to
    /// the end on both sides (see ``SyncEngine/write(_:_:)``) and returns as usual.
    ///
    /// A crash between the two is safe either way: a change in the outbox but not in the
    /// local store is applied again before the first call after a restart; a change in the
    /// local store but not in the outbox was never acknowledged, and the next pull replaces it
    /// (a full one: the outbox's session marker says the last session was killed).
    private func write(
        _ scope: KeyScope<ID>, _ changes: [(id: ID, entity: Entity?)], applying change: LocalChange<Entity>
    ) async throws {
        try await prepared()
        let body: @Sendable () async throws -> [LocalWrite<Entity>] = { [self] in
            try await writeBothSides(changes, applying: change)
        }
        if case .all = scope {
            // deleteAll also removes what was saved since it read its IDs: the streams read again.
            _ = try await engine.write(scope, body)
        } else {
            _ = try await engine.writeReported(scope, body)
        }
        engine.changed { try await sync() }
    }

    /// The body of ``write(_:_:applying:)``, holding the IDs' write lock; what it wrote to the
    /// local store, for the snapshot streams.
    ///
    /// An outbox kept in the local store's database writes the change and the local rows in
    /// one transaction instead: nothing to undo, nothing a crash can split.
    private func writeBothSides(
        _ changes: [(id: ID, entity: Entity?)], applying change: LocalChange<Entity>
    ) async throws -> [LocalWrite<Entity>] {
        let ids = changes.map(\.id)
        let before = Dictionary(
            try await local.fetch(ids: ids).map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
        let written = changes.map {
            LocalWrite(id: $0.id, entity: $0.entity, wasStored: before[$0.id] != nil)
        }
        _OfflineFirstTestHooks.reached(.writing)
        if outbox.joint != nil {
            _ = try await outbox.record(changes, localBases: before, applying: change)
            _OfflineFirstTestHooks.reached(.applied)
            return written
        }
        async let recording = outcome {
            let undo = try await outbox.record(changes, localBases: before)
            _OfflineFirstTestHooks.reached(.recorded)
            return undo
        }
        // The local write runs on this task, the outbox's on a child: one task fewer to
        // start and switch to on every write.
        let applying: Result<Void, any Error> = await outcome {
            try await change.apply(to: local)
            _OfflineFirstTestHooks.reached(.applied)
        }
        switch (await recording, applying) {
        case (.success, .success):
            return written
        case (.success(let undo), .failure(let failure)):
            try await undoRecord(undo, after: failure)
        case (.failure(let failure), .success):
            try await restoreLocal(ids, to: before, after: failure)
        case (.failure(let failure), .failure):
            throw failure
        }
    }

    private func outcome<T>(_ body: () async throws -> T) async -> Result<T, any Error> {
        do {
            return .success(try await body())
        } catch {
            return .failure(error)
        }
    }

    private func undoRecord(_ undo: Outbox<Entity>.Undo, after failure: any Error) async throws -> Never {
        do {
            try await outbox.undo(undo)
        } catch {
            let local = RepositoryError.wrapping(failure)
            throw RepositoryError(
                local.code,
                reason:
                    "\(local.reason); the change stays queued for the remote, because the outbox could not take it back (\(error))",
                recovery: "Reopen the store: the queued change is applied to it before the first call",
                underlying: failure)
        }
        throw failure
    }

    /// Puts the local copies of `ids` back as they were: the outbox could not take the change.
    private func restoreLocal(_ ids: [ID], to before: [ID: Entity], after failure: any Error) async throws
        -> Never
    {
        do {
            let absent = ids.filter { before[$0] == nil }
            if !before.isEmpty { try await local.save(contentsOf: Array(before.values)) }
            if !absent.isEmpty { try await local.delete(ids: absent) }
        } catch {
            let outbox = RepositoryError.wrapping(failure)
            throw RepositoryError(
                outbox.code,
                reason:
                    "\(outbox.reason); the local store shows the change, which is not queued for the remote, because it could not be taken back (\(error))",
                recovery:
                    "Write the change again once the outbox works; the next sync replaces the unsent copy",
                underlying: failure)
        }
        throw failure
    }

    /// Saves `entity` on this device and queues it for the remote.
    ///
    /// - Throws: the outbox's or the local store's error; then nothing was written.
    public func save(_ entity: Entity) async throws {
        try await write(.key(entity.id), [(entity.id, entity)], applying: .save(entity))
    }

    /// Saves the batch on this device, all or nothing, and queues it for the remote.
    public func save(contentsOf entities: [Entity]) async throws {
        guard !entities.isEmpty else { return }
        try await write(
            .keys(Set(entities.map(\.id))), entities.map { ($0.id, $0) }, applying: .saveBatch(entities))
    }

    /// Deletes `id` on this device and queues the delete for the remote.
    public func delete(id: ID) async throws {
        try await write(.key(id), [(id, nil)], applying: .delete(id))
    }

    /// Deletes `ids` on this device and queues the deletes for the remote.
    public func delete(ids: [ID]) async throws {
        guard !ids.isEmpty else { return }
        try await write(.keys(Set(ids)), ids.map { ($0, nil) }, applying: .deleteBatch(ids))
    }

    /// Deletes every entity this device holds and queues a delete of each for the remote.
    /// Entities the remote has and this device never saw are not deleted there.
    public func deleteAll() async throws {
        try await prepared()
        let ids = try await local.fetchAll().map(\.id)
        try await write(.all, ids.map { ($0, nil) }, applying: .deleteAll)
    }
}

extension OfflineFirstRepository {
    /// Where `id`'s changes stand: synced, pending or rejected.
    ///
    /// - Throws: the outbox's error when it cannot be read (closed, say).
    public func status(of id: ID) async throws -> SyncStatus {
        try await outbox.change(for: id)?.status ?? .synced
    }

    /// The pending changes now, then after every change: for a badge, or "3 changes waiting".
    public func pendingChanges() -> AsyncStream<[PendingChange<Entity>]> {
        outbox.pendingChanges()
    }

    /// The conflicts syncs settled that the app has not acknowledged, oldest first, now and
    /// after every change: for a screen that says what a sync decided ("merged field by
    /// field: notes from this device; status from the remote") until the user has seen it.
    /// Each is kept durably, across restarts and app updates, until
    /// ``acknowledge(conflict:)``. The stream ends when the outbox is closed.
    ///
    /// ```swift
    /// for await conflicts in notes.conflicts() {
    ///     banner = conflicts.last.map { "\($0.entityID): \($0.resolution)" }
    /// }
    /// ```
    public func conflicts() -> AsyncStream<[SyncConflict<Entity>]> {
        outbox.conflictUpdates()
    }

    /// Forgets `conflict`: the app has shown it, or has no use for it. A conflict forgotten
    /// already is no error.
    ///
    /// - Throws: the outbox's error when its file cannot be written (closed, say); then the
    ///   conflict is still kept.
    public func acknowledge(conflict: SyncConflict<Entity>) async throws {
        try await outbox.conflicts.acknowledge(conflict.id)
        engine.updates.send(.refreshed)
    }

    /// Makes a rejected change pending again and starts a sync when `automaticSync` is on.
    public func retry(id: ID) async throws {
        try await outbox.retry(id)
        engine.changed { try await sync() }
    }

    /// Drops the pending or rejected change of `id` and restores the remote's version here.
    ///
    /// - Throws: the remote's error when its version cannot be read; then nothing changes.
    public func discard(id: ID) async throws {
        try await prepared()
        let remoteCopy = try await remote.fetch(id: id)
        // The remote's copy outside the subset synced is not kept here, as a pull would not.
        let restore: LocalChange<Entity> =
            if let remoteCopy, syncedSubset?.query.matches(remoteCopy) ?? true {
                .save(remoteCopy)
            } else {
                .delete(id)
            }
        try await engine.write(.key(id)) { [outbox, local] in
            try await outbox.discard(id, restore: restore, on: local)
        }
    }
}

extension OfflineFirstRepository: InvalidatableRepository where Remote: InvalidatableRepository {
    /// Drops the copies the remote side keeps (a cache in front of the API); the local store
    /// is this device's data and keeps its copies.
    public func invalidate(ids: [ID]) async { await remote.invalidate(ids: ids) }
    /// Drops every copy the remote side keeps.
    public func invalidateAll() async { await remote.invalidateAll() }
}
