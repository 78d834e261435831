import Foundation

/// What a screen over an ``OfflineFirstRepository`` shows at one moment: the entities, which
/// of them wait to be sent or were refused, the conflicts syncs settled, how old the remote
/// state is, and the last sync error.
public struct OfflineSnapshot<Entity: Identifiable & Sendable>: Sendable where Entity.ID: Sendable {
    /// The entities the query selects, as the device holds them.
    public var entities: [Entity]
    /// The IDs with a change waiting to be sent (``SyncStatus/pending(attempts:lastError:)``).
    public var pendingIDs: Set<Entity.ID>
    /// The error the remote refused each ID's change with (``SyncStatus/rejected(_:)``), by ID:
    /// what a form shows beside the entity, such as the error's
    /// ``RepositoryError/fieldErrors`` next to each field, until the app retries or discards
    /// the change.
    public var rejections: [Entity.ID: RepositoryError]
    /// The IDs whose change the remote refused: the keys of ``rejections``.
    public var rejectedIDs: Set<Entity.ID> { Set(rejections.keys) }
    /// The conflicts syncs settled that the app has not acknowledged, oldest first, for every
    /// entity (not only those the query selects: a conflict may have deleted its entity). See
    /// ``OfflineFirstRepository/conflicts()``.
    public var conflicts: [SyncConflict<Entity>]
    /// When a sync last finished without an error, kept across restarts; `nil`: never.
    public var lastSyncedAt: Date?
    /// The error of the last sync that failed since then, or `nil`.
    public var lastSyncError: RepositoryError?

    /// Creates a snapshot from its parts.
    public init(
        entities: [Entity], pendingIDs: Set<Entity.ID>, rejections: [Entity.ID: RepositoryError],
        conflicts: [SyncConflict<Entity>] = [], lastSyncedAt: Date?, lastSyncError: RepositoryError?
    ) {
        self.entities = entities
        self.pendingIDs = pendingIDs
        self.rejections = rejections
        self.conflicts = conflicts
        self.lastSyncedAt = lastSyncedAt
        self.lastSyncError = lastSyncError
    }

    /// How long ago the remote state was last brought in, as of `now`; `nil`: never.
    public func age(now: Date = Date()) -> TimeInterval? {
        lastSyncedAt.map { now.timeIntervalSince($0) }
    }
}
