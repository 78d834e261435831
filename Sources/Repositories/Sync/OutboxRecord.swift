import Foundation

/// One pending change as the outbox keeps it on disk: one record per entity ID, kept in its
/// storage (the journal of a ``FileRepository``, or a table of the local SQLite database), so
/// a later change to an ID replaces the earlier one in place.
package typealias OutboxRecord<Entity: Identifiable> = StoredChange<Entity, Entity.ID>
where Entity.ID: Codable & Sendable

/// The fields of an outbox record, over the entity's shape `Payload`: the entity itself for
/// the records the outbox writes, or an older version's shape while the outbox's
/// migrations read a record an earlier release wrote (the record's other fields have not
/// changed between versions; only the entity and its base are upgraded).
package struct StoredChange<Payload: Sendable, ID: Codable & Sendable & Hashable>: Sendable, Identifiable {
    package var id: ID
    /// The entity to save; `nil` for a delete.
    package var entity: Payload?
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
    /// Whether this change has gone out in a request (or was about to) whose answer the
    /// device has not heard: the remote may hold it. Recorded durably before the request
    /// leaves, so a kill -9 after the remote applied it does not make it look unsent.
    var sending = false
    /// Versions of this ID the device sent earlier, in changes a later one replaced before
    /// their answer came: the remote may hold any of them. A remote at one of these is at
    /// the device's own write, not another device's, so the later change is sent over it
    /// rather than settled as a conflict. Oldest first; the last few only.
    var possiblyApplied: [PossiblyApplied<Payload>] = []
    /// The idempotency key of the request that carried this change and went unanswered
    /// (`nil` once answered, or never sent): a retry sends the change again in one request
    /// under this key, with every other change of that request still unchanged, so a server
    /// that applied the first answers the second from its record instead of applying it again.
    var sentKey: String?
    /// The condition of the conditional request that carried this change and went
    /// unanswered (`nil` once answered, or never sent so): the next sync sends that request
    /// again first, so a change the remote applied under a version it then rewrote (a
    /// server that normalises) is not taken for another device's.
    var sentCondition: SentCondition?
    /// Whether the base went through an upgrade of the outbox's migrations (an app update
    /// since the change was made): the fields an upgrade added hold its defaults in the base,
    /// while the remote holds values of its own, so a difference in a field this change did
    /// not touch may be no change on the remote at all (``SyncPlan/settle(_:remote:policy:)``).
    var baseUpgraded = false
    /// In an outbox of a ``SyncGroup``, the revision of the first change of this pending
    /// record: where it stands in the order the app made its changes, kept when a later change
    /// replaces it. The group's members take their revisions from one counter, so it orders
    /// their changes across entity types. `nil` outside a group, and for a change first made
    /// before its outbox joined one (which stands before every change made since).
    var firstRevision: UInt64?

    enum CodingKeys: String, CodingKey {
        case id, entity, base, key, revision, attempts, lastError, rejected, madeAt, sending, possiblyApplied
        case sentKey, sentCondition, baseUpgraded, firstRevision
    }

    /// How many earlier versions ``possiblyApplied`` keeps: a device that replaces a change
    /// while its answer is lost more often than this between two syncs that work may see its
    /// oldest own write as a conflict again.
    static var possiblyAppliedLimit: Int { 8 }

    /// The same change with its entity and base passed through `transform`.
    func mapPayload<New: Sendable>(_ transform: (Payload) throws -> New) rethrows -> StoredChange<New, ID> {
        var mapped = StoredChange<New, ID>(
            id: id, entity: try entity.map(transform), base: try base.map(transform), key: key,
            revision: revision, attempts: attempts,
            lastError: lastError,
            rejected: rejected, madeAt: madeAt)
        mapped.sending = sending
        mapped.sentKey = sentKey
        mapped.sentCondition = sentCondition
        mapped.baseUpgraded = baseUpgraded
        mapped.firstRevision = firstRevision
        mapped.possiblyApplied = try possiblyApplied.map {
            PossiblyApplied(entity: try $0.entity.map(transform), key: $0.key, condition: $0.condition)
        }
        return mapped
    }
}

/// A version of an entity the device sent and the remote may hold: its value, or `nil` for
/// a delete; and, while the conditional request that carried it is unanswered, the change's
/// key and that request's condition, so the next sync sends it again as it was before the
/// later change (a request still on its way then lands as a replay, not after the later
/// change).
struct PossiblyApplied<Payload: Sendable>: Sendable {
    var entity: Payload?
    var key: String?
    var condition: SentCondition?
}

extension PossiblyApplied: Encodable where Payload: Encodable {}
extension PossiblyApplied: Decodable where Payload: Decodable {}

extension StoredChange: Encodable where Payload: Encodable {}

extension StoredChange: Decodable where Payload: Decodable {
    /// Decodes a record, and refuses one whose counters the outbox never writes
    /// (``OutboxCounters/damage(revision:attempts:)``), so a damaged or forged counter reads as
    /// damage when the outbox opens, before any upgrade rewrites the file, rather than trapping
    /// when it next grows.
    ///
    /// - Throws: ``OutboxCounterDamage`` for such a counter.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(ID.self, forKey: .id)
        entity = try container.decodeIfPresent(Payload.self, forKey: .entity)
        base = try container.decodeIfPresent(Payload.self, forKey: .base)
        key = try container.decode(String.self, forKey: .key)
        revision = try container.decode(UInt64.self, forKey: .revision)
        attempts = try container.decode(Int.self, forKey: .attempts)
        lastError = try container.decodeIfPresent(StoredChangeError.self, forKey: .lastError)
        rejected = try container.decode(Bool.self, forKey: .rejected)
        madeAt = try container.decode(Date.self, forKey: .madeAt)
        // Absent in records written before the outbox kept them.
        sending = try container.decodeIfPresent(Bool.self, forKey: .sending) ?? false
        sentKey = try container.decodeIfPresent(String.self, forKey: .sentKey)
        sentCondition = try container.decodeIfPresent(SentCondition.self, forKey: .sentCondition)
        baseUpgraded = try container.decodeIfPresent(Bool.self, forKey: .baseUpgraded) ?? false
        firstRevision = try container.decodeIfPresent(UInt64.self, forKey: .firstRevision)
        possiblyApplied =
            try container.decodeIfPresent([PossiblyApplied<Payload>].self, forKey: .possiblyApplied) ?? []
        if let damage = OutboxCounters.damage(revision: revision, attempts: attempts) {
            throw OutboxCounterDamage(description: damage)
        }
    }
}

/// The ranges of an outbox record's counters, and their checked growth: the outbox never
/// writes `UInt64.max` as a revision (a record holding it would leave no next one) nor a
/// count of tries below zero or at `Int.max`, so what it writes it reads back, and a value
/// outside is damage.
enum OutboxCounters {
    /// The revision after `revision`; `nil` when that would reach `UInt64.max`.
    static func revision(after revision: UInt64) -> UInt64? {
        let (next, overflow) = revision.addingReportingOverflow(1)
        return overflow || next == .max ? nil : next
    }

    /// The count of tries after `attempts`; `nil` when that would reach `Int.max`.
    static func attempts(after attempts: Int) -> Int? {
        let (next, overflow) = attempts.addingReportingOverflow(1)
        return overflow || next == .max ? nil : next
    }

    /// What is wrong with a record's counters, as a phrase, or `nil` when the outbox could
    /// have written them.
    static func damage(revision: UInt64, attempts: Int) -> String? {
        if revision == .max { return "the revision \(revision), after which there is none" }
        if attempts < 0 { return "the count of tries (attempts) \(attempts), below zero" }
        if attempts == .max { return "the count of tries (attempts) \(attempts), which cannot grow" }
        return nil
    }
}

/// A record whose counters the outbox never writes; opening the outbox reports it as
/// `corrupted`.
struct OutboxCounterDamage: Error, CustomStringConvertible {
    /// What is wrong, as a phrase: "the revision 18446744073709551615, after which there is none".
    var description: String
}

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
    /// The HTTP status of a refusal, so a UI can tell a 422 from a 403 after a restart.
    /// Absent in records written before it was kept.
    var httpStatus: Int?
    /// The refusal's field errors, by Swift property name, for a form to show beside each
    /// field. Absent (or `nil`) when there were none, and in records written before.
    var fieldErrors: [String: [String]]?

    init(_ error: any Error) {
        let error = RepositoryError.wrapping(error)
        code = error.code.rawValue
        reason = error.reason
        recovery = error.recovery
        httpStatus = error.httpStatus
        fieldErrors = error.fieldErrors.isEmpty ? nil : error.fieldErrors
    }

    var error: RepositoryError {
        RepositoryError(
            RepositoryError.Code(rawValue: code) ?? .unavailable, reason: reason, recovery: recovery,
            httpStatus: httpStatus, fieldErrors: fieldErrors ?? [:])
    }
}

extension RepositoryError {
    /// `error` as a ``RepositoryError``: itself, or `unavailable` holding it.
    static func wrapping(_ error: any Error) -> RepositoryError {
        if let error = error as? RepositoryError { return error }
        return RepositoryError(.unavailable, reason: "\(error)", underlying: error)
    }
}
