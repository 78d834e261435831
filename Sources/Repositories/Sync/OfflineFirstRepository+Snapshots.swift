extension OfflineFirstRepository: SyncingRepository {
    /// Snapshots of what `query` selects, with the pending and refused IDs, the conflicts not
    /// yet acknowledged, the time of the last sync and its error: now, then after every
    /// write, sync, acknowledgement, and change to the pending changes. Snapshots that pile
    /// up while the consumer is busy are folded into the newest, and none is sent while a
    /// write is half done (its change queued but not yet shown here, or the reverse): the
    /// write's end sends the next.
    ///
    /// A write costs the stream what it changed, not a new run of the query: the stream
    /// keeps the query's answer (its first `offset + limit` matches) and puts each written
    /// entity in its place, and reads the pending changes from the outbox's memory (from its
    /// table, for an outbox that other processes share: `Outbox(in:)`). It runs the query on
    /// the local store again only when a write leaves the answer unknown (an entity left a
    /// full page, or an existing one entered it level on every sort key with one shown),
    /// after a full pull, and after another process committed to a shared outbox's file.
    ///
    /// - Throws: through the stream, a read of the local store or the outbox that failed,
    ///   or ``RepositoryError/Code/rejected`` for a query with a negative offset or limit.
    public func values(_ query: Query<Entity>) -> AsyncThrowingStream<OfflineSnapshot<Entity>, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(
            of: OfflineSnapshot<Entity>.self, bufferingPolicy: .bufferingNewest(1))
        // Subscribed before the first read, so nothing written meanwhile is missed.
        let updates = engine.updates.subscribe()
        let outboxChanges = outbox.changesBesidesWrites()
        let task = Task {
            let forwarding = Task {
                for await change in outboxChanges {
                    // Another process may have written the local rows too: the query runs again.
                    engine.updates.send(change == .elsewhere ? .reread : .refreshed)
                }
            }
            defer {
                forwarding.cancel()
                updates.end()
            }
            do {
                try query.validate()
                try await prepared()
                var follower = SnapshotFollower<Entity>(query: query)
                try await sendWholeSnapshot(&follower, updates, continuation)
                for await _ in updates.wakeUps {
                    follower.take(updates.take())
                    try await sendWholeSnapshot(&follower, updates, continuation)
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// Sends the follower's snapshot when something changed since the last one and no write
    /// is half done: such a write has recorded its change in the outbox but may not yet have
    /// applied it here (or the reverse). Its end wakes the stream, so the next one follows.
    private func sendWholeSnapshot(
        _ follower: inout SnapshotFollower<Entity>, _ updates: LocalUpdateFeed<Entity>.Subscription,
        _ continuation: AsyncThrowingStream<OfflineSnapshot<Entity>, any Error>.Continuation
    ) async throws {
        guard follower.changed else { return }
        let writes = engine.writes
        guard writes.underWay == 0 else { return }
        // Every write begun so far has ended and queued what it changed: take it all.
        follower.take(updates.take())
        let window = try await follower.window { try await local.fetch($0) }
        let conflicts = try await follower.conflicts { try await outbox.conflicts.all() }
        let (pendingIDs, rejections) = try await outbox.current { ($0.pendingIDs, $0.rejections) }
        // A write begun since has recorded its change, or soon will: its end wakes the stream.
        guard engine.writes.begun == writes.begun else { return }
        continuation.yield(
            OfflineSnapshot(
                entities: window.entities, pendingIDs: pendingIDs, rejections: rejections,
                conflicts: conflicts, lastSyncedAt: outbox.lastSyncedAt, lastSyncError: lastSyncError))
        follower.changed = false
    }

    /// What `query` selects now, with the pending and refused IDs, the conflicts not yet
    /// acknowledged, the time of the last sync and its error: one snapshot, as
    /// ``values(_:)`` sends them.
    ///
    /// - Throws: a read of the local store or the outbox that failed, or
    ///   ``RepositoryError/Code/rejected`` for a query with a negative offset or limit.
    public func snapshot(_ query: Query<Entity>) async throws -> OfflineSnapshot<Entity> {
        try query.validate()
        try await prepared()
        let entities = try await local.fetch(query)
        let (pendingIDs, rejections) = try await outbox.current { ($0.pendingIDs, $0.rejections) }
        return OfflineSnapshot(
            entities: entities, pendingIDs: pendingIDs, rejections: rejections,
            conflicts: try await outbox.conflicts.all(), lastSyncedAt: outbox.lastSyncedAt,
            lastSyncError: lastSyncError)
    }
}

/// What one snapshot stream knows between snapshots: the query's answer kept from the writes
/// (``QueryWindow``) and the conflicts, each read again only when an update says so.
struct SnapshotFollower<Entity: Identifiable & Sendable> where Entity.ID: Sendable {
    let query: Query<Entity>
    private var kept: QueryWindow<Entity>?
    private var keptConflicts: [SyncConflict<Entity>]?
    /// Whether anything changed since the last snapshot sent.
    var changed = true

    init(query: Query<Entity>) {
        self.query = query
    }

    /// Takes `updates`, oldest first.
    mutating func take(_ updates: [LocalUpdate<Entity>]) {
        for update in updates {
            changed = true
            switch update {
            case .wrote(let writes):
                if var window = kept {
                    kept = nil
                    if window.apply(writes) { kept = window }
                }
            case .refreshed:
                keptConflicts = nil
            case .reread:
                kept = nil
                keptConflicts = nil
            }
        }
    }

    /// The query's answer, from `fetch` of its first matches when it is not known.
    mutating func window(_ fetch: (Query<Entity>) async throws -> [Entity]) async throws -> QueryWindow<
        Entity
    > {
        if let kept { return kept }
        let window = QueryWindow(query, holding: try await fetch(QueryWindow.prefix(of: query)))
        kept = window
        return window
    }

    /// The conflicts, from `read` when they are not known.
    mutating func conflicts(_ read: () async throws -> [SyncConflict<Entity>]) async throws -> [SyncConflict<
        Entity
    >] {
        if let keptConflicts { return keptConflicts }
        let conflicts = try await read()
        keptConflicts = conflicts
        return conflicts
    }
}
