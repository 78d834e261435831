import Foundation

extension OfflineFirstRepository {
    /// Sends every pending change to the remote in order, then replaces the local state
    /// with the remote's, keeping the entities that have a pending change. One sync runs at
    /// a time; a caller that arrives during one waits and runs after it.
    ///
    /// - Throws: the first transient failure (the remote unreachable or busy: the changes
    ///   not sent stay pending, their try counted), or the pull's error. A change the remote
    ///   refuses is not thrown: it becomes ``SyncStatus/rejected(_:)`` and the others go on.
    ///   So does a change the remote refuses before anything is sent (`encodingFailed`, or an
    ///   error whose `underlying` is ``RefusedBeforeSending``, such as an ID that names no
    ///   resource), even while its current copy is read.
    public func sync() async throws {
        try await prepared()
        try await engine.syncOrder.withLock(.all) {
            do {
                try await push()
                try await pull()
                try outbox.noteSynced(at: Date())
                engine.syncEnded(with: nil)
            } catch {
                engine.syncEnded(with: error)
                throw error
            }
        }
    }

    // MARK: Push

    private typealias Record = OutboxRecord<Entity>

    /// A change on its way out, with the tag of the remote's version it was settled against
    /// when the remote tags versions (then the write is sent on that tag).
    private struct Outgoing {
        var record: Record
        var tag: String?
    }

    /// How often a conditional write refused because the remote changed meanwhile is
    /// settled and sent again within one sync, before it waits for the next.
    private static var conditionalRounds: Int { 3 }

    private func push() async throws {
        let pending = try await outbox.records().filter { !$0.rejected }
        guard !pending.isEmpty else { return }
        let current: Copies
        do {
            current = try await currentCopies(of: pending.map(\.id))
        } catch {
            try await outbox.fail(pending, with: error, rejected: false)
            throw error
        }
        for record in pending {
            if let error = current.refused[record.id] {
                try await outbox.fail([record], with: error, rejected: true)
            }
        }
        var toSend: [Outgoing] = []
        for record in pending where current.refused[record.id] == nil {
            let copy = current.copies[record.id]
            if let settled = try await settle(record, remote: copy?.entity) {
                toSend.append(Outgoing(record: settled, tag: copy?.tag))
            }
        }
        try await send(toSend)
    }

    /// What the remote holds for the pending IDs, and the IDs whose read it refused before
    /// anything was sent (their changes can never be sent as they are).
    private struct Copies {
        var copies: [ID: TaggedEntity<Entity>] = [:]
        var refused: [ID: any Error] = [:]
    }

    /// The remote's current copies of `ids`, each with its version's tag when the remote
    /// tags versions (``VersionTaggingRepository``), else with none. A read the remote refuses
    /// before the wire (``isRefusedBeforeSending(_:)``) marks that ID refused, and the others
    /// are read; a batch read so refused is read again one ID at a time to find it.
    private func currentCopies(of ids: [ID]) async throws -> Copies {
        var result = Copies()
        if let tagging = remote as? any VersionTaggingRepository<Entity, ID> {
            for id in ids {
                try Task.checkCancellation()
                do {
                    if let copy = try await tagging.fetchTagged(id: id) { result.copies[id] = copy }
                } catch  where Self.isRefusedBeforeSending(error) {
                    result.refused[id] = error
                }
            }
            return result
        }
        do {
            for entity in try await remote.fetch(ids: ids) {
                result.copies[entity.id] = TaggedEntity(entity, tag: nil)
            }
        } catch  where Self.isRefusedBeforeSending(error) && ids.count > 1 {
            for id in ids {
                try Task.checkCancellation()
                do {
                    for entity in try await remote.fetch(ids: [id]) {
                        result.copies[entity.id] = TaggedEntity(entity, tag: nil)
                    }
                } catch  where Self.isRefusedBeforeSending(error) {
                    result.refused[id] = error
                }
            }
        } catch  where Self.isRefusedBeforeSending(error) {
            if let id = ids.first { result.refused[id] = error }
        }
        return result
    }

    /// Whether the remote refused `error`'s call before anything was sent, for a value it
    /// can never send as it is: `encodingFailed`, or an error whose `underlying` is
    /// ``RefusedBeforeSending``. Such a refusal is about one change, not the remote, so it
    /// rejects that change alone.
    static func isRefusedBeforeSending(_ error: any Error) -> Bool {
        guard let error = error as? RepositoryError else { return false }
        return error.code == .encodingFailed || error.underlying is RefusedBeforeSending
    }

    /// The record to send for `record` given the remote's current copy, after the conflict
    /// policy had its say; `nil` when nothing is to be sent: the remote already holds the
    /// change (an earlier try landed and its answer was lost), or its version won.
    private func settle(_ record: Record, remote current: Entity?) async throws -> Record? {
        if Self.same(current, record.entity) {
            try await outbox.acknowledge([record])
            return nil
        }
        guard !Self.same(current, record.base) else { return record }
        switch conflicts {
        case .lastWriterWins:
            return record
        case .serverWins:
            try await keepRemote(current, for: record)
            return nil
        case .merge(let resolve):
            switch (record.entity, current) {
            case (let mine?, let theirs?):
                return try await engine.writeOrder.withLock(.key(record.id)) {
                    try Task.checkCancellation()
                    // The outbox and the local store both take the merge, or neither.
                    return try await runningToCompletion { [outbox, local] in
                        let merged = resolve(record.base, mine, theirs)
                        guard let updated = try await outbox.replaceEntity(of: record, with: merged) else {
                            return nil
                        }
                        try await local.save(merged)
                        return updated
                    }
                }
            case (nil, _?):
                // This device deleted what the remote changed: the change is kept.
                try await keepRemote(current, for: record)
                return nil
            default:
                return record
            }
        case .mergeFields(let tie):
            let merged = FieldMerge.merge(base: record.base, local: record.entity, remote: current, tie: tie)
            if Self.same(merged.result, record.entity) { return record }
            guard let result = merged.result, !Self.same(merged.result, current) else {
                try await keepRemote(current, for: record)
                return nil
            }
            return try await engine.writeOrder.withLock(.key(record.id)) {
                try Task.checkCancellation()
                // The outbox and the local store both take the merge, or neither.
                return try await runningToCompletion { [outbox, local] in
                    guard let updated = try await outbox.replaceEntity(of: record, with: result) else {
                        return nil
                    }
                    try await local.save(result)
                    return updated
                }
            }
        }
    }

    /// Drops `record` and puts the remote's version (`nil`: none) in the local store,
    /// unless a later change replaced the record meanwhile.
    private func keepRemote(_ current: Entity?, for record: Record) async throws {
        try await engine.writeOrder.withLock(.key(record.id)) {
            try Task.checkCancellation()
            // The local store takes the remote's version and the outbox drops the change, or neither.
            try await runningToCompletion { [outbox, local] in
                guard try await outbox.records([record.id])[record.id]?.revision == record.revision else {
                    return
                }
                if let current {
                    try await local.save(current)
                } else {
                    try await local.delete(id: record.id)
                }
                try await outbox.drop([record])
            }
        }
    }

    /// Sends `changes` in order: a change settled against a tagged version alone, on its
    /// tag; the others in runs of saves and of deletes, one batch call each. A batch the
    /// remote refuses is sent again one change at a time to find the one it refuses.
    private func send(_ changes: [Outgoing]) async throws {
        var index = 0
        while index < changes.count {
            var end = index + 1
            if changes[index].tag == nil {
                let isSave = changes[index].record.entity != nil
                while end < changes.count, changes[end].tag == nil,
                    (changes[end].record.entity != nil) == isSave
                {
                    end += 1
                }
            }
            do {
                if let tag = changes[index].tag {
                    try await sendConditionally(changes[index].record, on: tag)
                } else {
                    try await sendRun(changes[index..<end].map(\.record))
                }
            } catch let error where Self.isTransient(error) {
                try await outbox.fail(changes[index...].map(\.record), with: error, rejected: false)
                throw error
            }
            index = end
        }
    }

    private func sendRun(_ run: [Record]) async throws {
        do {
            _OfflineFirstTestHooks.reached(.sending)
            try await deliver(run)
            _OfflineFirstTestHooks.reached(.sent)
            try await outbox.acknowledge(run)
        } catch let error where !Self.isTransient(error) {
            guard run.count > 1 else {
                try await outbox.fail(run, with: error, rejected: true)
                return
            }
            for record in run { try await sendRun([record]) }
        }
    }

    private func deliver(_ run: [Record]) async throws {
        try await withIdempotencyKey(Self.key(of: run)) {
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
    }

    /// Sends `record` on the remote's version `tag` (`If-Match`). When the remote refuses
    /// because its copy changed since (`conflict`), reads it again, settles again and sends
    /// on the new tag, up to ``conditionalRounds`` times; then the change stays pending for
    /// the next sync. Any other refusal rejects the change.
    private func sendConditionally(_ record: Record, on tag: String) async throws {
        guard let tagging = remote as? any VersionTaggingRepository<Entity, ID> else {
            return try await sendRun([record])
        }
        var outgoing = Outgoing(record: record, tag: tag)
        for round in 1...Self.conditionalRounds {
            guard let tag = outgoing.tag else { return try await sendRun([outgoing.record]) }
            do {
                // The key names the change and the version it is sent on: a try sent again
                // after a lost answer is the same request; one on a newer version is not.
                _OfflineFirstTestHooks.reached(.sending)
                try await withIdempotencyKey(outgoing.record.key + "@" + Self.fingerprint(tag)) {
                    if let entity = outgoing.record.entity {
                        try await tagging.save(entity, ifMatch: tag)
                    } else {
                        try await tagging.delete(id: outgoing.record.id, ifMatch: tag)
                    }
                }
                _OfflineFirstTestHooks.reached(.sent)
                return try await outbox.acknowledge([outgoing.record])
            } catch let error as RepositoryError where error.code == .conflict {
                guard round < Self.conditionalRounds else {
                    return try await outbox.fail([outgoing.record], with: error, rejected: false)
                }
                let copy = try await tagging.fetchTagged(id: outgoing.record.id)
                guard let settled = try await settle(outgoing.record, remote: copy?.entity) else { return }
                outgoing = Outgoing(record: settled, tag: copy?.tag)
            } catch let error where !Self.isTransient(error) {
                return try await outbox.fail([outgoing.record], with: error, rejected: true)
            }
        }
    }

    /// The idempotency key of a run: the change's own for one change, and for several one
    /// derived from theirs, so a run sent again carries the same key.
    private static func key(of run: [Record]) -> String {
        if run.count == 1, let record = run.first { return record.key }
        return "batch-\(run.count)-" + fingerprint(run.map(\.key).joined(separator: ","))
    }

    /// A short, stable name for `text`: FNV-1a, 64 bits, in hex.
    private static func fingerprint(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        return String(hash, radix: 16)
    }

    /// Whether `error` says the remote could not be reached or was busy, so the change is
    /// worth sending again later, rather than refused.
    static func isTransient(_ error: any Error) -> Bool {
        if error is CancellationError { return true }
        return RetryPolicy.isTransient(error) || (error as? RepositoryError)?.code == .circuitOpen
    }

    // MARK: Pull

    private func pull() async throws {
        let values = try await remote.fetchAll()
        try await engine.writeOrder.withLock(.all) {
            let pending = Set(try await outbox.records().map(\.id))
            let current = try await local.fetchAll()
            let copies = Dictionary(current.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
            let changed = values.filter { !pending.contains($0.id) && !Self.same(copies[$0.id], $0) }
            _OfflineFirstTestHooks.reached(.pulling)
            if !changed.isEmpty { try await local.save(contentsOf: changed) }
            let remoteIDs = Set(values.map(\.id))
            let gone = current.map(\.id).filter { !remoteIDs.contains($0) && !pending.contains($0) }
            _OfflineFirstTestHooks.reached(.pulling)
            if !gone.isEmpty { try await local.delete(ids: gone) }
        }
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
}
