import Foundation

/// What a screen over an ``OfflineFirstRepository`` shows at one moment: the entities, which
/// of them wait to be sent or were refused, how old the remote state is, and the last sync
/// error.
public struct OfflineSnapshot<Entity: Identifiable & Sendable>: Sendable where Entity.ID: Sendable {
    /// The entities the query selects, as the device holds them.
    public var entities: [Entity]
    /// The IDs with a change waiting to be sent (``SyncStatus/pending(attempts:lastError:)``).
    public var pendingIDs: Set<Entity.ID>
    /// The IDs whose change the remote refused (``SyncStatus/rejected(_:)``).
    public var rejectedIDs: Set<Entity.ID>
    /// When a sync last finished without an error, kept across restarts; `nil`: never.
    public var lastSyncedAt: Date?
    /// The error of the last sync that failed since then, or `nil`.
    public var lastSyncError: RepositoryError?

    /// Creates a snapshot from its parts.
    public init(
        entities: [Entity], pendingIDs: Set<Entity.ID>, rejectedIDs: Set<Entity.ID>, lastSyncedAt: Date?,
        lastSyncError: RepositoryError?
    ) {
        self.entities = entities
        self.pendingIDs = pendingIDs
        self.rejectedIDs = rejectedIDs
        self.lastSyncedAt = lastSyncedAt
        self.lastSyncError = lastSyncError
    }

    /// How long ago the remote state was last brought in, as of `now`; `nil`: never.
    public func age(now: Date = Date()) -> TimeInterval? {
        lastSyncedAt.map { now.timeIntervalSince($0) }
    }
}
