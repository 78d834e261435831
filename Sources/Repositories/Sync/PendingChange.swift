import Foundation

/// A change of this device that has not reached the remote yet: what the UI shows for
/// "3 changes waiting", and what the outbox keeps on disk.
public struct PendingChange<Entity: Codable & Identifiable & Sendable>: Sendable, Identifiable
where Entity.ID: Codable & Sendable {
    /// What the change does.
    public enum Kind: Sendable {
        /// Saves this entity.
        case save(Entity)
        /// Deletes the entity.
        case delete
    }

    /// The ID of the entity changed.
    public var id: Entity.ID
    /// What the change does.
    public var kind: Kind
    /// The remote's version the change was made on (`nil` when the device had none).
    public var base: Entity?
    /// The key the remote sees on every try of this change, so it applies it once.
    public var idempotencyKey: String
    /// How many times sending it failed.
    public var attempts: Int
    /// Why the last try failed, when it did.
    public var lastError: RepositoryError?
    /// Whether the remote refused it (then ``lastError`` says why).
    public var isRejected: Bool
    /// When the change was made (the last time, when it replaced an earlier one).
    public var madeAt: Date

    /// Where the change stands: pending or rejected.
    public var status: SyncStatus {
        if isRejected, let lastError { return .rejected(lastError) }
        return .pending(attempts: attempts, lastError: lastError)
    }
}

/// Two kinds are equal when both delete, or both save equal entities: for tests that check
/// what the outbox holds.
extension PendingChange.Kind: Equatable where Entity: Equatable {}
