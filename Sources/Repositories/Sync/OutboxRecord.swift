import Foundation

/// One pending change as the outbox keeps it on disk: one record per entity ID, kept in
/// the journal of a ``FileRepository``, so a later change to an ID replaces the earlier
/// one in place.
typealias OutboxRecord<Entity: Identifiable> = StoredChange<Entity, Entity.ID>
where Entity.ID: Codable & Sendable

/// The fields of an outbox record, over the entity's shape `Payload`: the entity itself for
/// the records the outbox writes, or an older version's shape while the outbox's
/// migrations read a record an earlier release wrote (the record's other fields have not
/// changed between versions; only the entity and its base are upgraded).
struct StoredChange<Payload: Sendable, ID: Codable & Sendable & Hashable>: Sendable, Identifiable {
    var id: ID
    /// The entity to save; `nil` for a delete.
    var entity: Payload?
    /// The remote's version the change was made on.
    var base: Payload?
    /// The idempotency key of this logical write; a new one when a later change replaces it.
    var key: String
    /// Grows with every change the outbox records, so an acknowledgement of an older
    /// revision never removes a newer change.
    var revision: UInt64
    var attempts: Int
    var lastError: StoredChangeError?
    var rejected: Bool
    var madeAt: Date

    /// The same change with its entity and base passed through `transform`.
    func mapPayload<New: Sendable>(_ transform: (Payload) throws -> New) rethrows -> StoredChange<New, ID> {
        StoredChange<New, ID>(
            id: id, entity: try entity.map(transform), base: try base.map(transform), key: key,
            revision: revision, attempts: attempts,
            lastError: lastError,
            rejected: rejected, madeAt: madeAt)
    }
}

extension StoredChange: Encodable where Payload: Encodable {}
extension StoredChange: Decodable where Payload: Decodable {}

extension StoredChange where Payload: Codable & Identifiable, Payload.ID == ID {
    var change: PendingChange<Payload> {
        PendingChange(
            id: id, kind: entity.map { .save($0) } ?? .delete, base: base, idempotencyKey: key,
            attempts: attempts, lastError: lastError?.error, isRejected: rejected, madeAt: madeAt)
    }
}

/// A ``RepositoryError`` as the outbox keeps it: its code and sentences.
struct StoredChangeError: Codable, Sendable {
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

extension RepositoryError {
    /// `error` as a ``RepositoryError``: itself, or `unavailable` holding it.
    static func wrapping(_ error: any Error) -> RepositoryError {
        if let error = error as? RepositoryError { return error }
        return RepositoryError(.unavailable, reason: "\(error)", underlying: error)
    }
}
