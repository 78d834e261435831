import Repositories

extension SyncingRepository {
    /// What `query` selects now, with the pending and refused IDs and the last sync's time
    /// and error: the first snapshot of ``SyncingRepository/values(_:)``.
    ///
    /// A screen that stays open would watch `values(_:)` in a task; the examples read one
    /// snapshot after each step instead, so every state they print is the state after that
    /// step, whatever the scheduler did.
    ///
    /// - Throws: what the stream throws (a local store or outbox that cannot be read, a
    ///   query with a negative limit), or `CancellationError` when the task was cancelled
    ///   before the first snapshot.
    public func currentSnapshot(_ query: Query<Entity> = Query()) async throws -> OfflineSnapshot<Entity> {
        for try await snapshot in values(query) { return snapshot }
        throw CancellationError()
    }
}
