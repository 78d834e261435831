import Foundation

/// A conflict a sync settled: the three versions of one entity, what the sync kept, and
/// which rule decided.
///
/// A conflict is a change made on a version the remote no longer holds (another device or
/// the server wrote the entity meanwhile). The sync keeps one of these for each it settles,
/// durably beside the outbox, until the app acknowledges it, so a screen can say what
/// happened: "merged field by field: notes from this device; status from the remote".
///
/// ```swift
/// for await conflicts in notes.conflicts() {
///     for conflict in conflicts {
///         print(conflict.entityID, conflict.resolution)  // 7 merged field by field: …
///         try await notes.acknowledge(conflict: conflict)
///     }
/// }
/// ```
public struct SyncConflict<Entity: Identifiable & Sendable>: Sendable, Identifiable
where Entity.ID: Sendable {
    /// This conflict's own identity, by which the app acknowledges it; not the entity's.
    public let id: UUID
    /// The ID of the entity in conflict.
    public let entityID: Entity.ID
    /// The version this device's change was made on; `nil` when the device had none.
    public let base: Entity?
    /// This device's change; `nil` when it deleted the entity.
    public let local: Entity?
    /// The remote's copy when the sync read it; `nil` when the remote had deleted it.
    public let remote: Entity?
    /// What the sync kept, on the remote and here; `nil`: the entity is deleted.
    public let result: Entity?
    /// Which rule decided, and how.
    public let resolution: ConflictResolution
    /// When the sync settled it.
    public let settledAt: Date

    /// Creates a conflict record from its parts, with a new identity unless one is given.
    public init(
        id: UUID = UUID(), entityID: Entity.ID, base: Entity?, local: Entity?, remote: Entity?,
        result: Entity?, resolution: ConflictResolution, settledAt: Date = Date()
    ) {
        self.id = id
        self.entityID = entityID
        self.base = base
        self.local = local
        self.remote = remote
        self.result = result
        self.resolution = resolution
        self.settledAt = settledAt
    }
}

extension SyncConflict: Equatable where Entity: Equatable {}

extension SyncConflict: Codable where Entity: Codable, Entity.ID: Codable {}
