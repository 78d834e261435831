/// A repository that takes writes offline and syncs them with a remote: what a view model
/// asks for, without spelling the stack's generic type.
///
/// ```swift
/// @Observable final class NotesModel {
///     let notes: any SyncingRepository<Note, UUID>
///     var snapshot: OfflineSnapshot<Note>?
///     func watch() async throws {
///         for try await snapshot in notes.values(Query()) { self.snapshot = snapshot }
///     }
/// }
/// ```
public protocol SyncingRepository<Entity, ID>: Repository where Entity: Codable, ID: Codable {
    /// Sends the pending changes, then brings the remote's state in, and says what it did.
    @discardableResult
    func sync() async throws -> SyncReport<ID>
    /// Where `id`'s changes stand.
    func status(of id: ID) async throws -> SyncStatus
    /// The pending changes now, then after every change to them.
    func pendingChanges() -> AsyncStream<[PendingChange<Entity>]>
    /// Makes a rejected change pending again.
    func retry(id: ID) async throws
    /// Drops the change of `id` and restores the remote's version.
    func discard(id: ID) async throws
    /// The conflicts syncs settled that the app has not acknowledged, now and after every
    /// change.
    func conflicts() -> AsyncStream<[SyncConflict<Entity>]>
    /// Forgets a conflict the app has shown.
    func acknowledge(conflict: SyncConflict<Entity>) async throws
    /// Snapshots of what `query` selects: now, then after every write, sync and change to
    /// the pending changes.
    func values(_ query: Query<Entity>) -> AsyncThrowingStream<OfflineSnapshot<Entity>, any Error>
    /// What `query` selects now, with the pending and refused IDs and the conflicts: one
    /// snapshot.
    func snapshot(_ query: Query<Entity>) async throws -> OfflineSnapshot<Entity>
    /// The error of the last sync that failed, or `nil` after one that worked.
    var lastSyncError: RepositoryError? { get }
    /// Stops syncing by itself; `sync()` still works when called.
    func stopAutomaticSync()
}
