import Foundation

/// What a push does, decided before anything is written or sent: from the outbox's pending
/// records, the remote's current copies and the conflict policy, the fate of each change;
/// from the changes to send, the requests that carry them and the idempotency key of each.
///
/// Pure: no store, no remote, no clock, so every rule is tested from tables
/// (`SyncPlanTests`). ``OfflineFirstRepository/sync()`` carries the plan out.
enum SyncPlan<Entity: Codable & Identifiable & Sendable> where Entity.ID: Codable & Sendable {
    typealias Record = OutboxRecord<Entity>

    // MARK: Settling one change

    /// What becomes of one pending change.
    enum Decision {
        /// The remote already holds the change (an earlier try landed and its answer was
        /// lost, or the process was killed before it heard): acknowledge it, send nothing.
        case alreadyApplied
        /// Send the change as it is.
        case send
        /// The remote's version stands (`nil`: the remote has none): drop the change and put
        /// that version in the local store.
        case keepRemote(Entity?)
        /// The policy merged the two versions: the change becomes `merged`, here and on the
        /// remote.
        case sendMerged(Entity)
    }

    /// The fate of `record` given the remote's current version (`nil`: it has none).
    ///
    /// A remote that holds the change's own version has it already. A remote still at the
    /// version the change was made on, or at a version this device sent earlier whose answer
    /// it never heard (``StoredChange/possiblyApplied``: its own write, not another
    /// device's), has no conflict: send. Otherwise the remote changed
    /// meanwhile, and the policy decides: ``ConflictPolicy/lastWriterWins`` sends,
    /// ``ConflictPolicy/serverWins`` keeps the remote's, ``ConflictPolicy/merge(_:)`` merges
    /// two saves, keeps the remote's change over a local delete, and sends a local save over
    /// a remote delete (nothing written is lost); ``ConflictPolicy/mergeFields(tie:)`` merges
    /// field by field (``FieldMerge``), sending the device's change when the merge is it,
    /// keeping the remote's when the merge is the remote's (or a deletion), and sending the
    /// merge otherwise.
    static func decide(_ record: Record, remote current: Entity?, policy: ConflictPolicy<Entity>) -> Decision
    {
        settle(record, remote: current, policy: policy).decision
    }

    /// A change's fate (``decide(_:remote:policy:)``) and, when the remote's version was a
    /// conflict (``isConflict(_:remote:)``), what settled it.
    struct Settlement {
        var decision: Decision
        /// `nil`: no conflict.
        var resolution: ConflictResolution?
    }

    /// The fate of `record` given the remote's version `current`, and what settled the
    /// conflict when there was one: see ``decide(_:remote:policy:)``.
    static func settle(_ record: Record, remote current: Entity?, policy: ConflictPolicy<Entity>)
        -> Settlement
    {
        if same(current, record.entity) { return Settlement(decision: .alreadyApplied) }
        guard isConflict(record, remote: current) else { return Settlement(decision: .send) }
        if let settled = settleAcrossAnUpgrade(record, remote: current) { return settled }
        switch policy {
        case .lastWriterWins:
            return Settlement(decision: .send, resolution: .localKept)
        case .serverWins:
            return Settlement(decision: .keepRemote(current), resolution: .remoteKept)
        case .merge(let resolve):
            switch (record.entity, current) {
            case (let mine?, let theirs?):
                return Settlement(
                    decision: .sendMerged(resolve(record.base, mine, theirs)), resolution: .customMerge)
            case (nil, _?):
                return Settlement(
                    decision: .keepRemote(current), resolution: .changeKeptOverDeletion(changedOn: .remote))
            default:
                return Settlement(decision: .send, resolution: .changeKeptOverDeletion(changedOn: .local))
            }
        case .mergeFields(let tie):
            let merged = FieldMerge.merge(base: record.base, local: record.entity, remote: current, tie: tie)
            if same(merged.result, record.entity) {
                return Settlement(decision: .send, resolution: merged.resolution)
            }
            guard let result = merged.result, !same(result, current) else {
                return Settlement(decision: .keepRemote(current), resolution: merged.resolution)
            }
            return Settlement(decision: .sendMerged(result), resolution: merged.resolution)
        }
    }

    /// A change whose base an app update upgraded (``StoredChange/baseUpgraded``), against a
    /// remote that differs from that base only in fields the change did not touch: no
    /// conflict, whatever the policy. The upgrade filled the fields it added with its
    /// defaults, the remote holds its own values there, and the two cannot be told apart
    /// from a change made on the remote; so the remote's fields are taken and the change's
    /// kept (a field merge), never an edit dropped for a default. `nil` when the change is
    /// no such one, or when both sides changed a field: then the policy decides.
    private static func settleAcrossAnUpgrade(_ record: Record, remote current: Entity?) -> Settlement? {
        guard record.baseUpgraded, let local = record.entity, let current else { return nil }
        let merged = FieldMerge.merge(base: record.base, local: local, remote: current, tie: .remote)
        guard case .mergedByField(_, _, let tied) = merged.resolution, tied.isEmpty,
            let result = merged.result
        else { return nil }
        if same(result, local) { return Settlement(decision: .send) }
        if same(result, current) { return Settlement(decision: .keepRemote(current)) }
        return Settlement(decision: .sendMerged(result))
    }

    /// The record of the conflict `settlement` settled for `record` against the remote's
    /// version `current`, settled at `date`; `nil` when there was no conflict.
    ///
    /// Its identity comes from the change's key and the remote's version, so settling the
    /// same conflict again (a sync killed before it acted, and run again) gives the same
    /// record, kept once.
    static func conflict(
        _ record: Record, remote current: Entity?, settlement: Settlement, at date: Date
    ) -> SyncConflict<Entity>? {
        guard let resolution = settlement.resolution else { return nil }
        let result: Entity? =
            switch settlement.decision {
            case .alreadyApplied, .send: record.entity
            case .keepRemote(let version): version
            case .sendMerged(let merged): merged
            }
        let identity = Fingerprint.uuid(of: "\(record.key)\u{0}\(versionText(current))")
        return SyncConflict(
            id: identity, entityID: record.id, base: record.base, local: record.entity, remote: current,
            result: result, resolution: resolution, settledAt: date)
    }

    /// A version as text that is the same in every process for the same version: its JSON
    /// with sorted keys (dictionaries, sets and dates printed in full), or, for an entity
    /// that does not encode, its reflection; "none" for no version.
    static func versionText(_ version: Entity?) -> String {
        guard let version else { return "none" }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        do {
            return String(decoding: try encoder.encode(version), as: UTF8.self)
        } catch {
            // Such an entity fails loudly when it is sent; here it only needs a name.
            return String(reflecting: version)
        }
    }

    /// Whether the remote's version `current` is a conflict for `record`: it changed since the
    /// version the change was made on, to one this device did not send itself (nor is it
    /// the change's own version, which means the change landed).
    static func isConflict(_ record: Record, remote current: Entity?) -> Bool {
        !same(current, record.entity) && !same(current, record.base)
            && !record.possiblyApplied.contains(where: { same(current, $0.entity) })
    }

    /// Whether `record`, settled against the remote's version `current` (`nil`: none), goes
    /// out as a create the remote refuses once it holds a copy of the ID
    /// (``VersionTaggingRepository/saveIfAbsent(_:)``), on a remote that
    /// `createsConditionally`.
    ///
    /// A save made on no remote version (no base) that found none does: a copy created
    /// meanwhile, or an earlier try of this change landing late, is then settled instead of
    /// overwritten. A save whose request went out and was never answered
    /// (``StoredChange/sentKey``) goes again as that request went, whatever the remote holds
    /// now: as a create when it went as one (``StoredChange/sentCondition``), else as the
    /// plain save it was, under the same key. Sent as a create instead, it would be refused
    /// where a copy exists and go out next under a new key, and the first request, landing
    /// late, would be a second application. A change with a base, a delete, or a save that
    /// found a copy goes as before.
    /// Whether `record` can be pushed without reading the remote's copy first: the first try
    /// of a create (no base, never sent) to a remote that refuses a create of an ID it holds
    /// (`createsConditionally`). It goes as that create; a refusal reads the copy and settles
    /// the change then, as a copy read before would have.
    static func needsNoRead(_ record: Record, createsConditionally: Bool) -> Bool {
        createsConditionally && record.entity != nil && record.base == nil && record.sentKey == nil
            && record.sentCondition == nil && record.possiblyApplied.isEmpty
    }

    static func createsIfAbsent(_ record: Record, remote current: Entity?, createsConditionally: Bool) -> Bool
    {
        guard createsConditionally, record.entity != nil, record.base == nil else { return false }
        if record.sentKey != nil { return record.sentCondition == .ifAbsent }
        return current == nil
    }

    /// Whether two versions are the same: `==` when the entity is `Equatable`, else equal
    /// encoded JSON (keys sorted).
    static func same(_ lhs: Entity?, _ rhs: Entity?) -> Bool {
        switch (lhs, rhs) {
        case (nil, nil): return true
        case (let lhs?, let rhs?):
            if let equal = equalIfEquatable(lhs, rhs) { return equal }
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            // An entity that does not encode compares as changed; sending it reports the error.
            guard let left = try? encoder.encode(lhs), let right = try? encoder.encode(rhs) else {
                return false
            }
            return left == right
        default: return false
        }
    }

    // MARK: Requests

    /// A change on its way out, with the tag of the remote's version it was settled against
    /// when the remote tags versions (then it is sent on that tag).
    struct Outgoing {
        var record: Record
        var tag: String?
        /// Whether it goes as a create the remote refuses once it holds a copy
        /// (``SyncPlan/createsIfAbsent(_:remote:createsConditionally:)``).
        var ifAbsent = false

        /// The condition it goes on: a create if absent, else on its tag; `nil`: none.
        var condition: SentCondition? {
            if ifAbsent && record.entity != nil { return .ifAbsent }
            return tag.map { .ifMatch($0) }
        }
    }

    /// A write the remote applies only on its condition.
    enum ConditionalWrite {
        case save(Entity, ifMatch: String)
        case delete(Entity.ID, ifMatch: String)
        case create(Entity)
    }

    /// The write that sends `record` on `condition`, and its idempotency key; `nil` for a
    /// delete on ``SentCondition/ifAbsent``, which no request is (a create is a save).
    static func write(of record: Record, on condition: SentCondition) -> (ConditionalWrite, key: String)? {
        write(id: record.id, entity: record.entity, changeKey: record.key, on: condition)
    }

    /// The write that sends version `entity` of `id` (`nil`: a delete), of the change keyed
    /// `changeKey`, on `condition`, and its idempotency key; `nil` as above.
    static func write(id: Entity.ID, entity: Entity?, changeKey: String, on condition: SentCondition)
        -> (ConditionalWrite, key: String)?
    {
        switch (condition, entity) {
        case (.ifMatch(let tag), let entity?):
            (.save(entity, ifMatch: tag), key(ofChange: changeKey, on: tag))
        case (.ifMatch(let tag), nil): (.delete(id, ifMatch: tag), key(ofChange: changeKey, on: tag))
        case (.ifAbsent, let entity?): (.create(entity), changeKey)
        case (.ifAbsent, nil): nil
        }
    }

    /// One request of a push.
    enum Request {
        /// One change sent on the remote's version `tag` (`If-Match`).
        case conditional(Record, tag: String)
        /// One save sent only if the remote holds no copy of its ID (`If-None-Match: *`), under
        /// the change's own key.
        case create(Record)
        /// Saves sent in one call under `key` (one change: `save`; several: `save(contentsOf:)`).
        case saves([Record], key: String)
        /// Deletes sent in one call under `key` (one change: `delete(id:)`; several:
        /// `delete(ids:)`).
        case deletes([Record], key: String)

        /// The changes the request carries, in order.
        var records: [Record] {
            switch self {
            case .conditional(let record, _), .create(let record): [record]
            case .saves(let records, _), .deletes(let records, _): records
            }
        }
    }

    /// The requests that send `changes`, in order: a change that goes as a create
    /// (``Outgoing/ifAbsent``) alone, as one; changes an unconditional request carried
    /// that went unanswered (the same ``StoredChange/sentKey``) together again in one request
    /// under that key, where the first of them stands, tagged or not (a retry is the same
    /// request, so a server that applied it answers from its record); a change settled
    /// against a tagged version alone, on its tag; the others in the longest runs of saves
    /// and of deletes between them, one call each, under ``key(of:)``.
    static func requests(for changes: [Outgoing]) -> [Request] {
        var unanswered: [String: [Record]] = [:]
        for change in changes where !change.ifAbsent {
            if let key = change.record.sentKey { unanswered[key, default: []].append(change.record) }
        }
        var requests: [Request] = []
        var index = 0
        while index < changes.count {
            let record = changes[index].record
            if changes[index].ifAbsent {
                requests.append(.create(record))
                index += 1
                continue
            }
            if let key = record.sentKey {
                // The whole unanswered request, once, where its first change stands.
                if let run = unanswered.removeValue(forKey: key) { requests.append(request(run, key: key)) }
                index += 1
                continue
            }
            if let tag = changes[index].tag {
                requests.append(.conditional(record, tag: tag))
                index += 1
                continue
            }
            let isSave = record.entity != nil
            var end = index + 1
            while end < changes.count, changes[end].tag == nil, changes[end].record.sentKey == nil,
                !changes[end].ifAbsent, (changes[end].record.entity != nil) == isSave
            {
                end += 1
            }
            let run = changes[index..<end].map(\.record)
            requests.append(request(run, key: key(of: run)))
            index = end
        }
        return requests
    }

    /// Saves or deletes `run` (all of one kind) under `key`.
    private static func request(_ run: [Record], key: String) -> Request {
        run.first?.entity != nil ? .saves(run, key: key) : .deletes(run, key: key)
    }

    /// The idempotency key of a run of changes: the change's own for one change, and for
    /// several one derived from theirs, so a run sent again carries the same key.
    static func key(of run: [Record]) -> String {
        if run.count == 1, let record = run.first { return record.key }
        return "batch-\(run.count)-" + Fingerprint.of(run.map(\.key).joined(separator: ","))
    }

    /// The idempotency key of a change sent on the remote's version `tag`: it names the
    /// change and the version, so a try sent again after a lost answer is the same request,
    /// and one on a newer version is not.
    static func key(of record: Record, on tag: String) -> String {
        key(ofChange: record.key, on: tag)
    }

    /// The idempotency key of the change keyed `changeKey` sent on the version `tag`.
    static func key(ofChange changeKey: String, on tag: String) -> String {
        changeKey + "@" + Fingerprint.of(tag)
    }
}
