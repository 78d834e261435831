import Foundation

extension OfflineFirstRepository {
    /// Sends every pending change to the remote in order, then replaces the local state
    /// with the remote's, keeping the entities that have a pending change. One sync runs at
    /// a time; a caller that arrives during one waits and runs after it. With an outbox that
    /// several instances share (`Outbox(in:)`, an app and its extension), one sync runs at a
    /// time across all of them, in any process: a sync waits for another instance's.
    ///
    /// - Throws: the first transient failure (the remote unreachable or busy: the changes
    ///   not sent stay pending, their try counted), or the pull's error. A change the remote
    ///   refuses is not thrown: it becomes ``SyncStatus/rejected(_:)`` and the others go on.
    ///   So does a change the remote refuses before anything is sent (`encodingFailed`, or an
    ///   error whose `underlying` is ``RefusedBeforeSending``, such as an ID that names no
    ///   resource), even while its current copy is read.
    /// - Returns: what the sync did: the changes sent and confirmed, the entities received,
    ///   the conflicts settled, the changes refused with their errors, the calls made to the
    ///   remote, and how long it took.
    ///
    /// A member of a ``SyncGroup`` runs the group's sync, which sends every member's changes
    /// in the order they depend on each other, and returns this repository's part of it.
    @discardableResult
    public func sync() async throws -> SyncReport<ID> {
        if let group = membership?.group {
            return try await group.sync(for: ObjectIdentifier(Entity.self), as: SyncReport<ID>.self)
        }
        try await prepared()
        return try await engine.whileSyncing {
            let tally = SyncTally<ID>()
            let start = ContinuousClock.now
            do {
                try await outbox.whileSyncing {
                    try await push(tally)
                    try await pull(tally)
                    try outbox.noteSynced(at: Date())
                }
                engine.syncEnded(with: nil)
                return tally.report(duration: ContinuousClock.now - start)
            } catch {
                engine.syncEnded(with: error)
                throw error
            }
        }
    }

    // MARK: Push

    private typealias Record = OutboxRecord<Entity>
    typealias Plan = SyncPlan<Entity>
    private typealias Outgoing = Plan.Outgoing

    /// How often a conditional write refused because the remote changed meanwhile is
    /// settled and sent again within one sync, before it waits for the next.
    private static var conditionalRounds: Int { 3 }

    /// Pushes the pending changes, or of them only those `only` names, at the revision it
    /// gives (a ``SyncGroup``'s push, which holds back the others, and leaves a change
    /// replaced since it planned for its next round).
    func push(_ tally: SyncTally<ID>, only: [ID: UInt64]? = nil) async throws {
        let pending = try await outbox.records().filter { record in
            !record.rejected && (only.map { $0[record.id] == record.revision } ?? true)
        }
        guard !pending.isEmpty else { return }
        let createsConditionally = remote is any VersionTaggingRepository<Entity, ID>
        let current: Copies
        do {
            // A first try of a create needs no read: it goes as a create the remote refuses
            // once it holds a copy, and only then is the copy read and the change settled.
            let unread = Set(
                pending.filter { Plan.needsNoRead($0, createsConditionally: createsConditionally) }.map(\.id))
            current = try await currentCopies(of: pending.map(\.id).filter { !unread.contains($0) }, tally)
        } catch {
            try await outbox.fail(pending, with: error, rejected: false)
            throw error
        }
        for record in pending {
            if let error = current.refused[record.id] {
                try await outbox.fail([record], with: error, rejected: true)
                tally.rejected([record.id], with: error)
            }
        }
        var toSend: [Outgoing] = []
        for var record in pending where current.refused[record.id] == nil {
            var copy = current.copies[record.id]
            if record.possiblyApplied.contains(where: { $0.condition != nil }) {
                guard let answered = try await resendEarlierUnanswered(record, copy, tally) else { continue }
                record = answered.record
                copy = answered.copy
            }
            // A remote that holds the change as sent has it: the plan acknowledges it, no
            // request. Any other copy may be the change rewritten: ask with the same request.
            if let condition = record.sentCondition, !Plan.same(copy?.entity, record.entity) {
                guard let stale = try await resendUnanswered(record, condition, copy, tally) else { continue }
                (record, copy) = stale
            }
            if var outgoing = try await settle(record, remote: copy, tally) {
                outgoing.ifAbsent = Plan.createsIfAbsent(
                    outgoing.record, remote: copy?.entity, createsConditionally: createsConditionally)
                toSend.append(outgoing)
            }
        }
        do {
            try await send(toSend, tally)
        } catch {
            // What was confirmed before the failure is settled: an entity of it outside the
            // subset leaves here now, as below.
            try await removeIfOutsideSubset(pending.map(\.id))
            throw error
        }
        try await removeIfOutsideSubset(pending.map(\.id))
    }

    /// What the remote holds for the pending IDs, and the IDs whose read it refused before
    /// anything was sent (their changes can never be sent as they are).
    private struct Copies {
        var copies: [ID: TaggedEntity<Entity>] = [:]
        var refused: [ID: any Error] = [:]
    }

    /// Sends again, as they were and before `record` is settled, the conditional requests
    /// that carried earlier versions of its entity and went unanswered before `record`
    /// replaced them (``PossiblyApplied/condition``): a request still on its way then lands
    /// as a replay of its key, never after the later change (a create that lands after the
    /// delete that followed it would bring the entity back). Each answered is noted: applied,
    /// its version may be on the remote; refused, it never was.
    ///
    /// - Returns: the record as it now stands and the remote's copy read after the resends;
    ///   `nil` when a later change replaced the record meanwhile.
    /// - Throws: a transient failure, with the change left pending and its try counted.
    private func resendEarlierUnanswered(
        _ record: Record, _ copy: TaggedEntity<Entity>?, _ tally: SyncTally<ID>
    ) async throws -> (record: Record, copy: TaggedEntity<Entity>?)? {
        // Only a remote that tags versions takes conditional requests.
        guard let tagging = remote as? any VersionTaggingRepository<Entity, ID> else { return (record, copy) }
        for earlier in record.possiblyApplied {
            guard let condition = earlier.condition, let key = earlier.key,
                let write = Plan.write(id: record.id, entity: earlier.entity, changeKey: key, on: condition)
            else { continue }
            do {
                tally.requested()
                try await perform(write, tagging)
                try await outbox.earlierRequestAnswered(of: record.id, key: key, applied: true)
            } catch let error where SyncFailure.leavesChangePending(error) {
                try await outbox.fail([record], with: error, rejected: false)
                throw error
            } catch {
                // Refused (its condition no longer held, or otherwise): it was never applied.
                try await outbox.earlierRequestAnswered(of: record.id, key: key, applied: false)
            }
        }
        guard let current = try await outbox.records([record.id])[record.id],
            current.revision == record.revision
        else { return nil }
        tally.requested()
        return (current, try await tagging.fetchTagged(id: record.id))
    }

    /// Sends again, as it was, the conditional request that carried `record` and went
    /// unanswered (``StoredChange/sentCondition``): the same condition, under the same key.
    /// A remote that applied it answers from its record of the key, and the change is
    /// confirmed, even where the remote rewrote what it stored (normalised it), which no read
    /// could tell from another device's write. A remote that did not apply it checks the
    /// condition: when it holds, the change is applied now, as it was sent; when it no longer
    /// holds (`conflict`: the entity changed meanwhile), the change is settled again against
    /// the remote's copy read then.
    ///
    /// - Returns: `nil` when the change is done with (confirmed, refused for good, or replaced
    ///   meanwhile); else the change to settle and the remote's current copy.
    /// - Throws: a transient failure, with the change left pending and its try counted.
    private func resendUnanswered(
        _ record: Record, _ condition: SentCondition, _ copy: TaggedEntity<Entity>?, _ tally: SyncTally<ID>
    ) async throws -> (Record, TaggedEntity<Entity>?)? {
        guard let tagging = remote as? any VersionTaggingRepository<Entity, ID>,
            let write = Plan.write(of: record, on: condition)
        else {
            // No such request can have gone out: settle the change afresh.
            return (record, copy)
        }
        do {
            try await deliver(record, write, tagging, tally)
            return nil
        } catch let error as RepositoryError where error.code == .conflict {
            guard
                let answered = try await outbox.requestRefused([record], rekey: condition == .ifAbsent)[
                    record.id]
            else { return nil }
            tally.requested()
            let copy = try await tagging.fetchTagged(id: record.id)
            if condition == .ifAbsent, copy == nil {
                let refusal = Self.createRefusedWithoutACopy(error, id: record.id)
                try await outbox.fail([answered], with: refusal, rejected: true)
                tally.rejected([record.id], with: refusal)
                return nil
            }
            return (answered, copy)
        } catch let error where !SyncFailure.leavesChangePending(error) {
            try await outbox.fail([record], with: error, rejected: true)
            tally.rejected([record.id], with: error)
            return nil
        } catch {
            try await outbox.fail([record], with: error, rejected: false)
            throw error
        }
    }

    /// The refusal of a create the remote answered as a conflict (a copy exists) while it
    /// holds no copy: it refused the create for a reason of its own (a unique field taken,
    /// a request in progress), so the change is rejected with the server's words, not
    /// settled, and not tried again forever.
    private static func createRefusedWithoutACopy(_ error: RepositoryError, id: ID) -> RepositoryError {
        var refusal = error
        refusal.code = .rejected
        refusal.reason =
            "The server refused to create \(id) as if it held a copy, but holds none: it refused it for a "
            + "reason of its own. \(error.reason)"
        refusal.recovery =
            "Read the server's answer (responseBody), change the entity, then retry(id:) or discard(id:)"
        return refusal
    }

    /// The remote's current copies of `ids`, each with its version's tag when the remote
    /// tags versions (``VersionTaggingRepository``), else with none. A read the remote refuses
    /// before the wire (``SyncFailure/isRefusedBeforeSending(_:)``) marks that ID refused, and the others
    /// are read; a batch read so refused is read again one ID at a time to find it.
    private func currentCopies(of ids: [ID], _ tally: SyncTally<ID>) async throws -> Copies {
        var result = Copies()
        guard !ids.isEmpty else { return result }
        if let tagging = remote as? any VersionTaggingRepository<Entity, ID> {
            for id in ids {
                try Task.checkCancellation()
                tally.requested()
                do {
                    if let copy = try await tagging.fetchTagged(id: id) { result.copies[id] = copy }
                } catch  where SyncFailure.isRefusedBeforeSending(error) {
                    result.refused[id] = error
                }
            }
            return result
        }
        tally.requested()
        do {
            for entity in try await remote.fetch(ids: ids) {
                result.copies[entity.id] = TaggedEntity(entity, tag: nil)
            }
        } catch  where SyncFailure.isRefusedBeforeSending(error) && ids.count > 1 {
            for id in ids {
                try Task.checkCancellation()
                tally.requested()
                do {
                    for entity in try await remote.fetch(ids: [id]) {
                        result.copies[entity.id] = TaggedEntity(entity, tag: nil)
                    }
                } catch  where SyncFailure.isRefusedBeforeSending(error) {
                    result.refused[id] = error
                }
            }
        } catch  where SyncFailure.isRefusedBeforeSending(error) {
            if let id = ids.first { result.refused[id] = error }
        }
        return result
    }

    /// Carries out the plan's decision for `record` given the remote's current copy (see
    /// ``SyncPlan/decide(_:remote:policy:)``), and returns the change to send, or `nil` when
    /// nothing is to be sent.
    private func settle(_ record: Record, remote current: TaggedEntity<Entity>?, _ tally: SyncTally<ID>)
        async throws -> Outgoing?
    {
        let settlement = Plan.settle(record, remote: current?.entity, policy: conflictPolicy)
        if let conflict = Plan.conflict(record, remote: current?.entity, settlement: settlement, at: Date()) {
            // Kept before the sync acts on it, so a kill in between loses no record of it.
            try await outbox.conflicts.keep(conflict)
            tally.conflicted(record.id)
        }
        switch settlement.decision {
        case .alreadyApplied:
            try await outbox.acknowledge([record])
            tally.confirmed(1)
            return nil
        case .send:
            return Outgoing(record: record, tag: current?.tag)
        case .keepRemote(let version):
            try await keepRemote(version, for: record)
            return nil
        case .sendMerged(let merged):
            // The outbox and the local store both take the merge, or neither.
            let updated = try await engine.write(.key(record.id)) { [outbox, local] () -> Record? in
                try await outbox.replaceEntity(
                    of: record, with: merged, mergedWith: current?.entity, savingIn: local)
            }
            return updated.map { Outgoing(record: $0, tag: current?.tag) }
        }
    }

    /// Drops `record` and puts the remote's version (`nil`: none) in the local store,
    /// unless a later change replaced the record meanwhile; both, or neither.
    private func keepRemote(_ current: Entity?, for record: Record) async throws {
        // The remote's copy outside the subset synced is not kept here, as a pull would not.
        let restore: LocalChange<Entity> =
            if let current, syncedSubset?.query.matches(current) ?? true {
                .save(current)
            } else {
                .delete(record.id)
            }
        try await engine.write(.key(record.id)) { [outbox, local] in
            try await outbox.drop(record, restoring: restore, in: local)
        }
    }

    /// Removes here each entity of `ids` that is outside the subset synced and has no change
    /// pending, once the push settled its change: confirmed (the remote may have applied it
    /// before the feed's cursor, a write answered again from its key, so no pull would report
    /// it), or found already applied. Nothing happens without a subset.
    private func removeIfOutsideSubset(_ ids: [ID]) async throws {
        guard let subset = syncedSubset, !ids.isEmpty else { return }
        try await engine.write(.keys(Set(ids))) { [outbox, local] in
            let pending = try await outbox.records(ids)
            let outside = try await local.fetch(ids: ids.filter { pending[$0] == nil })
                .filter { !subset.query.matches($0) }.map(\.id)
            guard !outside.isEmpty else { return }
            if let joint = outbox.joint {
                // Another instance may record a change meanwhile: the transaction leaves it out.
                _ = try await joint.applyRemote(saving: [], deleting: outside)
            } else {
                try await local.delete(ids: outside)
            }
        }
    }

    /// Sends `changes` in the plan's requests (see ``SyncPlan/requests(for:)``). A run the
    /// remote refuses is sent again one change at a time to find the one it refuses. A
    /// transient failure leaves this change and every later one pending, and is thrown.
    private func send(_ changes: [Outgoing], _ tally: SyncTally<ID>) async throws {
        let requests = Plan.requests(for: changes)
        for (index, request) in requests.enumerated() {
            do {
                switch request {
                case .conditional(let record, let tag):
                    try await sendOnCondition(Outgoing(record: record, tag: tag), tally)
                case .create(let record):
                    try await sendOnCondition(Outgoing(record: record, ifAbsent: true), tally)
                case .saves(let run, let key), .deletes(let run, let key):
                    try await sendRun(run, under: key, tally)
                }
            } catch let error where SyncFailure.leavesChangePending(error) {
                try await outbox.fail(requests[index...].flatMap(\.records), with: error, rejected: false)
                throw error
            }
        }
    }

    /// Sends `run` in one call. A remote that refuses it (not a transient failure) has the
    /// run narrowed to one change a call, to find the change it refuses; an error of the
    /// outbox's own is thrown, never taken for a refusal.
    private func sendRun(_ run: [Record], under key: String, _ tally: SyncTally<ID>) async throws {
        try await outbox.markSending(run, underKey: key)
        _OfflineFirstTestHooks.reached(.sending)
        tally.sent(run.map(\.id))
        tally.requested()
        let echo = WriteEcho()
        do {
            try await WriteEcho.$listener.withValue(echo) { try await deliver(run, under: key) }
        } catch let error where !SyncFailure.leavesChangePending(error) {
            guard run.count > 1 else {
                try await outbox.fail(run, with: error, rejected: true)
                tally.rejected(run.map(\.id), with: error)
                return
            }
            // Narrowed with each change's own key, never a new one; and never the run's
            // again, which the remote answered with this refusal.
            let answered = try await outbox.requestRefused(run)
            for record in run {
                guard let current = answered[record.id] else { continue }  // replaced meanwhile
                try await sendRun([current], under: current.key, tally)
            }
            return
        }
        _OfflineFirstTestHooks.reached(.sent)
        try await outbox.acknowledge(run, echoes: echo.stored(Entity.self))
        tally.confirmed(run.count)
    }

    /// Sends `run` in one call under `key`, and each change's own key for a remote that sends
    /// a batch one entity at a time (``IdempotencyKey/perEntity``).
    private func deliver(_ run: [Record], under key: String) async throws {
        let ownKeys = Dictionary(
            run.map { (String(describing: $0.id), $0.key) }, uniquingKeysWith: { _, last in last })
        try await IdempotencyKey.$perEntity.withValue(run.count > 1 ? ownKeys : [:]) {
            try await withIdempotencyKey(key) { try await deliverInOneCall(run) }
        }
    }

    /// The remote's call for `run`: a save or a delete of one, or of several.
    private func deliverInOneCall(_ run: [Record]) async throws {
        let saves = run.compactMap(\.entity)
        if saves.count == 1, let entity = saves.first {
            try await remote.save(entity)
        } else if !saves.isEmpty {
            try await remote.save(contentsOf: saves)
        } else if run.count == 1, let record = run.first {
            try await remote.delete(id: record.id)
        } else {
            try await remote.delete(ids: run.map(\.id))
        }
    }

    /// Sends `first` on its condition (``SyncPlan/Outgoing/condition``): on the remote's version
    /// its tag names (`If-Match`), or as a create the remote refuses once it holds a copy
    /// (``VersionTaggingRepository/saveIfAbsent(_:)``, under the change's own key), noted in
    /// the outbox as unanswered until the answer comes (``StoredChange/sentCondition``). When
    /// the remote refuses because its copy changed or exists (`conflict`: another client
    /// wrote it, or an earlier try of this change landed late), reads the copy again, settles
    /// again (the change's own version, or one it replaced before hearing an answer, is no
    /// conflict) and sends on the new condition, up to ``conditionalRounds`` times; then the
    /// change stays pending for the next sync. Any other refusal rejects the change.
    private func sendOnCondition(_ first: Outgoing, _ tally: SyncTally<ID>) async throws {
        guard let tagging = remote as? any VersionTaggingRepository<Entity, ID> else {
            return try await sendRun([first.record], under: first.record.key, tally)
        }
        var outgoing = first
        for round in 1...Self.conditionalRounds {
            guard let condition = outgoing.condition,
                let write = Plan.write(of: outgoing.record, on: condition)
            else {
                return try await sendRun([outgoing.record], under: outgoing.record.key, tally)
            }
            do {
                // A create goes under the change's own key: a retry is the same request.
                let key = condition == .ifAbsent ? outgoing.record.key : nil
                try await outbox.markSending([outgoing.record], underKey: key, condition: condition)
                try await deliver(outgoing.record, write, tagging, tally)
                return
            } catch let error as RepositoryError where error.code == .conflict {
                // A refusal is an answer: whatever goes next is a request of its own, and after
                // a refused create, under a key of its own (the refused one replays the refusal).
                guard
                    let answered = try await outbox.requestRefused(
                        [outgoing.record], rekey: condition == .ifAbsent)[outgoing.record.id]
                else { return }  // a later change replaced it meanwhile
                guard round < Self.conditionalRounds else {
                    return try await outbox.fail([answered], with: error, rejected: false)
                }
                tally.requested()
                let copy = try await tagging.fetchTagged(id: answered.id)
                if condition == .ifAbsent, copy == nil {
                    let refusal = Self.createRefusedWithoutACopy(error, id: answered.id)
                    try await outbox.fail([answered], with: refusal, rejected: true)
                    return tally.rejected([answered.id], with: refusal)
                }
                guard var settled = try await settle(answered, remote: copy, tally) else { return }
                settled.ifAbsent = Plan.createsIfAbsent(
                    settled.record, remote: copy?.entity, createsConditionally: true)
                outgoing = settled
            } catch let error where !SyncFailure.leavesChangePending(error) {
                try await outbox.fail([outgoing.record], with: error, rejected: true)
                return tally.rejected([outgoing.record.id], with: error)
            }
        }
    }

    /// Sends `record` once as `write` (a conditional write and its key), and confirms it when
    /// the remote takes it.
    ///
    /// - Throws: the remote's error (`conflict` when the condition failed); nothing is
    ///   confirmed then.
    private func deliver(
        _ record: Record, _ write: (Plan.ConditionalWrite, key: String),
        _ tagging: any VersionTaggingRepository<Entity, ID>, _ tally: SyncTally<ID>
    ) async throws {
        _OfflineFirstTestHooks.reached(.sending)
        tally.sent([record.id])
        tally.requested()
        let echo = WriteEcho()
        try await WriteEcho.$listener.withValue(echo) { try await perform(write, tagging) }
        _OfflineFirstTestHooks.reached(.sent)
        try await outbox.acknowledge([record], echoes: echo.stored(Entity.self))
        tally.confirmed(1)
    }

    /// Makes the call `write` names, under its key.
    private func perform(
        _ write: (Plan.ConditionalWrite, key: String), _ tagging: any VersionTaggingRepository<Entity, ID>
    ) async throws {
        try await withIdempotencyKey(write.key) {
            switch write.0 {
            case .save(let entity, let tag): try await tagging.save(entity, ifMatch: tag)
            case .delete(let id, let tag): try await tagging.delete(id: id, ifMatch: tag)
            case .create(let entity): try await tagging.saveIfAbsent(entity)
            }
        }
    }
}
