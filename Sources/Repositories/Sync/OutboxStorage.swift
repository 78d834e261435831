import Foundation

/// Where an ``Outbox`` keeps its pending changes, or its kept conflicts: records by ID, in
/// the order their IDs were first written (a later write of an ID keeps its place), a batch
/// all or nothing, every write as durable as the storage is made (the journal flushes each;
/// the SQLite tables follow their database's `synchronous` setting).
///
/// Two storages exist: the journal of a ``FileRepository`` (`Outbox(fileURL:)`, the default)
/// and tables of an SQLite database beside the local store's (`Outbox(in:)` in
/// `RepositoriesSQLite`), whose writes can join the local store's (``OutboxJointStorage``).
package protocol OutboxStorage<Record>: Sendable {
    /// What the storage keeps.
    associatedtype Record: Identifiable & Sendable where Record.ID: Sendable

    /// Every record, in the order their IDs were first written.
    func fetchAll() async throws -> [Record]
    /// The records of `ids` that exist.
    func fetch(ids: [Record.ID]) async throws -> [Record]
    /// Writes `records`, all or nothing, durably.
    func save(contentsOf records: [Record]) async throws
    /// Removes the records of `ids`, all or nothing, durably.
    func delete(ids: [Record.ID]) async throws
    /// How many records there are; throws `closed` once the storage is closed.
    func count() async throws -> Int
    /// Lets go of the storage; later calls throw `closed`.
    func close() async throws
}

extension FileRepository: OutboxStorage {}

/// An outbox storage that writes its records and a local store's rows in one transaction,
/// so a write of an offline-first repository is in both or in neither, with no undo path and
/// nothing a crash can split; and that several outbox instances share, in this process or
/// others (an app and its extension): every read-modify-write reads what it changes inside
/// the transaction that changes it.
package protocol OutboxJointStorage<Entity>: Sendable {
    /// The entity of the local store.
    associatedtype Entity: Codable & Identifiable & Sendable where Entity.ID: Codable & Sendable

    /// Whether `local` is the local store whose writes this storage joins.
    func joins(_ local: Any) -> Bool

    /// Reads the records of `ids` and writes what `body` makes of them (and its local change,
    /// if any), in one transaction no other writer of the file interleaves with.
    ///
    /// `body` runs inside the transaction, on the storage's writer, and may run before a
    /// failure undoes it: it computes, it does not act. It takes the highest revision handed
    /// out by any instance (never lower than `floor`) and raises it for each revision it
    /// uses; the storage keeps the new highest in the same transaction.
    ///
    /// - Returns: what `body` returned, and the highest revision after it.
    func edit<T: Sendable>(
        _ ids: [Entity.ID], revisionsAfter floor: UInt64,
        _ body:
            @escaping @Sendable (_ current: [Entity.ID: OutboxRecord<Entity>], _ highest: inout UInt64) throws
            -> OutboxEdit<Entity, T>
    ) async throws -> (result: T, highest: UInt64)

    /// Applies the remote's versions to the local store, in one transaction that leaves out
    /// every ID with a pending change as the transaction reads the outbox: a change another
    /// instance recorded after the caller read the pending changes is never overwritten.
    ///
    /// - Returns: the saved entities and the deleted IDs it applied.
    func applyRemote(saving: [Entity], deleting: [Entity.ID]) async throws -> (
        saved: [Entity], deleted: [Entity.ID]
    )

    /// A number that changes whenever another connection (another instance, another process)
    /// commits to the storage's file, and only then: SQLite's `data_version`.
    func othersCommits() async throws -> Int64
}

/// What one read-modify-write of an outbox writes (``OutboxJointStorage/edit(_:revisionsAfter:_:)``).
package struct OutboxEdit<Entity: Codable & Identifiable & Sendable, Result: Sendable>: Sendable
where Entity.ID: Codable & Sendable {
    /// The records to write.
    package var saving: [OutboxRecord<Entity>] = []
    /// The IDs whose records go.
    package var erasing: [Entity.ID] = []
    /// What the local store takes in the same transaction, if anything.
    package var local: LocalChange<Entity>?
    /// What the caller gets back.
    package var result: Result

    /// An edit that writes `saving`, erases `erasing`, applies `local` and returns `result`.
    package init(
        saving: [OutboxRecord<Entity>] = [], erasing: [Entity.ID] = [], local: LocalChange<Entity>? = nil,
        result: Result
    ) {
        self.saving = saving
        self.erasing = erasing
        self.local = local
        self.result = result
    }
}

/// A change of a write of the offline-first repository to its local store, as the
/// repository's own call made it (a batch of one stays a batch).
package enum LocalChange<Entity: Identifiable & Sendable>: Sendable where Entity.ID: Sendable {
    /// Saves one entity.
    case save(Entity)
    /// Saves these entities, all or nothing.
    case saveBatch([Entity])
    /// Deletes one ID.
    case delete(Entity.ID)
    /// Deletes these IDs, all or nothing.
    case deleteBatch([Entity.ID])
    /// Deletes every entity.
    case deleteAll

    /// Applies the change to `local` with the call that makes it.
    func apply<Local: Repository>(to local: Local) async throws
    where Local.Entity == Entity, Local.ID == Entity.ID {
        switch self {
        case .save(let entity): try await local.save(entity)
        case .saveBatch(let entities): try await local.save(contentsOf: entities)
        case .delete(let id): try await local.delete(id: id)
        case .deleteBatch(let ids): try await local.delete(ids: ids)
        case .deleteAll: try await local.deleteAll()
        }
    }
}

/// What an ``Outbox`` is made of: the storages of its changes and conflicts, and where the
/// files beside them go.
package struct OutboxParts<Entity: Codable & Identifiable & Sendable>: Sendable
where Entity.ID: Codable & Sendable {
    /// The pending changes.
    package var records: any OutboxStorage<OutboxRecord<Entity>>
    /// The conflicts settled and not yet acknowledged.
    package var conflicts: any OutboxStorage<StoredConflict<Entity, Entity.ID>>
    /// The file that holds the changes, as ``Outbox/fileURL`` says.
    package var fileURL: URL
    /// The path the files beside the outbox are named after (`.synced`, `.cursor`, `.open`).
    package var sidecars: URL
    /// The storage that writes records and local rows together, when there is one.
    package var joint: (any OutboxJointStorage<Entity>)?
    /// The lock a sync holds, when several instances share the outbox: one instance syncs at
    /// a time, in any process.
    package var syncLock: OutboxSyncLock?
    /// Whether a session that ended without closing makes the next pull read in full (see
    /// ``SessionMarker``); an outbox whose writes are joint cannot be split from the local
    /// store by a crash, and does not need it when its commits are durable.
    package var marksSessions: Bool
    /// Whether the outbox belongs to a ``SyncGroup``: its revisions come from the counter the
    /// group's members share, and each change keeps where it stands in the group's order
    /// (``StoredChange/firstRevision``).
    package var groupOrdered: Bool

    /// The parts of an outbox.
    package init(
        records: any OutboxStorage<OutboxRecord<Entity>>,
        conflicts: any OutboxStorage<StoredConflict<Entity, Entity.ID>>, fileURL: URL, sidecars: URL,
        joint: (any OutboxJointStorage<Entity>)?, syncLock: OutboxSyncLock? = nil, marksSessions: Bool,
        groupOrdered: Bool = false
    ) {
        self.groupOrdered = groupOrdered
        self.syncLock = syncLock
        self.records = records
        self.conflicts = conflicts
        self.fileURL = fileURL
        self.sidecars = sidecars
        self.joint = joint
        self.marksSessions = marksSessions
    }
}
