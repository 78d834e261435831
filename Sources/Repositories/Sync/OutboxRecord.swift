import Foundation

/// One pending change as the outbox keeps it on disk: one record per entity ID, kept in
/// the journal of a ``FileRepository``, so a later change to an ID replaces the earlier
/// one in place.
struct OutboxRecord<Entity: Codable & Identifiable & Sendable>: Codable, Identifiable, Sendable
where Entity.ID: Codable & Sendable {
    /// A ``RepositoryError`` as the outbox keeps it: its code and sentences.
    struct StoredError: Codable, Sendable {
        var code: String
        var reason: String
        var recovery: String?

        init(_ error: any Error) {
            let error = RepositoryError.wrapping(error)
            code = error.code.rawValue
            reason = error.reason
            recovery = error.recovery
        }

        var error: RepositoryError {
            RepositoryError(
                RepositoryError.Code(rawValue: code) ?? .unavailable, reason: reason, recovery: recovery)
        }
    }

    var id: Entity.ID
    /// The entity to save; `nil` for a delete.
    var entity: Entity?
    /// The remote's version the change was made on.
    var base: Entity?
    /// The idempotency key of this logical write; a new one when a later change replaces it.
    var key: String
    /// Grows with every change the outbox records, so an acknowledgement of an older
    /// revision never removes a newer change.
    var revision: UInt64
    var attempts: Int
    var lastError: StoredError?
    var rejected: Bool
    var madeAt: Date

    var change: PendingChange<Entity> {
        PendingChange(
            id: id, kind: entity.map { .save($0) } ?? .delete, base: base, idempotencyKey: key,
            attempts: attempts, lastError: lastError?.error, isRejected: rejected, madeAt: madeAt)
    }
}

extension RepositoryError {
    /// `error` as a ``RepositoryError``: itself, or `unavailable` holding it.
    static func wrapping(_ error: any Error) -> RepositoryError {
        if let error = error as? RepositoryError { return error }
        return RepositoryError(.unavailable, reason: "\(error)", underlying: error)
    }
}
