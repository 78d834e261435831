extension InMemoryRepository: ChangeFeedRepository {
    /// The entities saved and the IDs deleted after `cursor`, each ID once, in the order of
    /// their latest write; from `nil`, every entity (and the deletions it remembers).
    ///
    /// Reading the feed does not count as a use of the entities it returns.
    ///
    /// - Throws: `cursorExpired` for a cursor another store issued (another instance, one
    ///   from before the process restarted) or one older than the deletions forgotten by
    ///   ``forgetDeletions(keepingLast:)``; `rejected` when `limit` is not above zero.
    /// - Complexity: O(log *n* + *k*) for a page of *k* IDs.
    public func changes(since cursor: SyncCursor?, limit: Int) async throws -> ChangePage<Entity, ID> {
        guard limit > 0 else {
            throw RepositoryError(
                .rejected, reason: "A page of changes needs a limit above zero, got \(limit)",
                recovery: "Ask for at least one change per page")
        }
        return try storage.withLock { state in
            let log = state.changeLog ?? _ChangeLog()
            let (ids, next, hasMore) = log.page(after: try log.number(of: cursor), limit: limit)
            var saved: [Entity] = []
            var deleted: [ID] = []
            for id in ids {
                if let entity = state.entities[id] { saved.append(entity) } else { deleted.append(id) }
            }
            return ChangePage(saved: saved, deleted: deleted, next: log.cursor(next), hasMore: hasMore)
        }
    }

    /// Forgets all but the `count` most recent deletions the feed remembers, as a server
    /// drops old tombstones: a reader whose cursor, issued before the call, is older than
    /// the newest one forgotten gets `cursorExpired` and reads everything again (the cursors
    /// of that new read work). For tests of that path.
    ///
    /// ```swift
    /// remote.forgetDeletions()   // every device's next sync pulls in full
    /// ```
    public func forgetDeletions(keepingLast count: Int = 0) {
        storage.withLock { state in _ = state.changeLog?.forgetDeletions(keepingLast: count) }
    }
}
