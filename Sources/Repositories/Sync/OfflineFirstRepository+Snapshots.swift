extension OfflineFirstRepository: SyncingRepository {
    /// Snapshots of what `query` selects, with the pending and refused IDs, the conflicts not
    /// yet acknowledged, the time of the last sync and its error: now, then after every
    /// write, sync, acknowledgement, and change to the pending changes. Snapshots that pile up while the consumer is busy are folded into
    /// the newest, and none is sent while a write is half done (its change queued but not
    /// yet shown here, or the reverse): the write's end sends the next.
    ///
    /// - Throws: through the stream, a read of the local store or the outbox that failed,
    ///   or ``RepositoryError/Code/rejected`` for a query with a negative offset or limit.
    public func values(_ query: Query<Entity>) -> AsyncThrowingStream<OfflineSnapshot<Entity>, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(
            of: OfflineSnapshot<Entity>.self, bufferingPolicy: .bufferingNewest(1))
        let updates = engine.updates.subscribe(bufferingPolicy: .bufferingNewest(1))
        let changes = outbox.pendingChanges()
        let task = Task {
            let forwarding = Task {
                // The stream starts with the changes as they are: the first snapshot shows
                // those already, so only later changes call for another.
                for await _ in changes.dropFirst() { engine.updates.send(()) }
            }
            defer { forwarding.cancel() }
            do {
                try query.validate()
                if let first = try await wholeSnapshot(query) { continuation.yield(first) }
                for await _ in updates {
                    if let next = try await wholeSnapshot(query) { continuation.yield(next) }
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// A snapshot that shows no write half done, or `nil` when a write was under way or began
    /// while it was read: such a write has recorded its change in the outbox but may not yet
    /// have applied it here (or the reverse). Its end sends an update (the streams subscribe
    /// before they read), so the next snapshot follows.
    private func wholeSnapshot(_ query: Query<Entity>) async throws -> OfflineSnapshot<Entity>? {
        let writes = engine.writes
        guard writes.underWay == 0 else { return nil }
        let snapshot = try await snapshot(query)
        return engine.writes.begun == writes.begun ? snapshot : nil
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
        let changes = try await outbox.changes()
        return OfflineSnapshot(
            entities: entities,
            pendingIDs: Set(changes.filter { !$0.isRejected }.map(\.id)),
            rejections: Self.rejections(in: changes), conflicts: try await outbox.conflicts.all(),
            lastSyncedAt: outbox.lastSyncedAt, lastSyncError: lastSyncError)
    }

    /// The error of each refused change in `changes`, by ID.
    private static func rejections(in changes: [PendingChange<Entity>]) -> [ID: RepositoryError] {
        var rejections: [ID: RepositoryError] = [:]
        for change in changes where change.isRejected {
            rejections[change.id] = change.lastError
        }
        return rejections
    }
}
