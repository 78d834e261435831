/// One offline-first repository of a ``SyncGroup``, over its entity type, as the group drives
/// it: the group knows its members by these calls alone.
package protocol SyncGroupMember: Sendable {
    /// The member's entity type.
    var entityType: ObjectIdentifier { get }
    /// The entity type's name, for errors.
    var typeName: String { get }
    /// The file that keeps the member's pending changes (the group's database).
    var outboxFile: String { get }
    /// Whether the member's outbox was closed: the group then drops it.
    var isClosed: Bool { get }
    /// Applies what must be applied before the member's first call (see
    /// ``OfflineFirstRepository``), and starts its automatic sync.
    func prepare() async throws
    /// Runs `body` holding the member outbox's own sync lock, its cursor and the time of its
    /// last sync read again (another process may have synced).
    func whileSyncing(_ body: () async throws -> Void) async throws
    /// A new sync of this member, counting what it does.
    func begin() -> any SyncGroupRun
    /// The member's counts now and after every change to its pending changes.
    func statusUpdates() -> AsyncStream<SyncGroupStatus>
}

/// One member's part of one ``SyncGroup`` sync: its pushes, its pull and what they did.
package protocol SyncGroupRun: Sendable {
    /// The member's entity type.
    var entityType: ObjectIdentifier { get }
    /// The highest revision any member's outbox has handed out, from the counter they share:
    /// every change made up to it is committed.
    func latestRevision() async throws -> UInt64
    /// The member's pending changes now, in its outbox's order, with their dependencies.
    func changes() async throws -> [GroupedChange]
    /// Pushes the pending changes of `versions`' entities that are still at the revision
    /// given (each an entity of this member, read by ``changes()`` before); one a later change
    /// replaced since is left for the next round.
    ///
    /// - Throws: a transient failure, with the changes not sent left pending.
    func push(_ versions: [SyncDependency: UInt64]) async throws
    /// Notes on each change of `held` still at the revision given the error that says what
    /// it waits for.
    func hold(_ held: [SyncDependency: (revision: UInt64, error: RepositoryError)]) async throws
    /// Brings the remote's changes of the member's type in.
    func pull() async throws
    /// Ends the member's part of the sync: notes when it synced (`error` `nil`) and tells the
    /// member's streams and ``OfflineFirstRepository/lastSyncError``.
    func finish(with error: (any Error)?) throws
    /// What this member's part did, its IDs as the group names them.
    func report(duration: Duration) -> SyncReport<SyncDependency>
    /// What this member's part did, as the member's own ``OfflineFirstRepository/sync()``
    /// returns it (a `SyncReport` of the member's ID type).
    func ownReport(duration: Duration) -> any Sendable
}
