/// How many changes of a ``SyncGroup``'s members wait for the remote, for one badge over
/// all of them: ``SyncGroup/status()`` streams it.
public struct SyncGroupStatus: Sendable, Equatable, CustomStringConvertible {
    /// The changes not confirmed by the remote yet, rejected ones included.
    public var pending: Int
    /// Of ``pending``, the changes the remote refused: each waits for
    /// ``OfflineFirstRepository/retry(id:)`` or ``OfflineFirstRepository/discard(id:)``.
    public var rejected: Int
    /// Of ``pending``, the changes held back by an earlier change they depend on, which the
    /// remote refused or has not confirmed yet (their last error's code is
    /// ``RepositoryError/Code/heldBack``, and says which).
    public var heldBack: Int

    /// A status of these counts.
    public init(pending: Int = 0, rejected: Int = 0, heldBack: Int = 0) {
        self.pending = pending
        self.rejected = rejected
        self.heldBack = heldBack
    }

    /// The counts of `changes`.
    init<Entity>(_ changes: [PendingChange<Entity>]) {
        self.init(
            pending: changes.count, rejected: changes.count(where: \.isRejected),
            heldBack: changes.count(where: { !$0.isRejected && $0.lastError?.code == .heldBack }))
    }

    /// The sum of two members' counts.
    static func + (left: SyncGroupStatus, right: SyncGroupStatus) -> SyncGroupStatus {
        SyncGroupStatus(
            pending: left.pending + right.pending, rejected: left.rejected + right.rejected,
            heldBack: left.heldBack + right.heldBack)
    }

    /// "5 pending, 1 rejected, 2 held back".
    public var description: String { "\(pending) pending, \(rejected) rejected, \(heldBack) held back" }
}
