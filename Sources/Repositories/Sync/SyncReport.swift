/// What one sync did: the changes it sent and the remote confirmed, what it brought in, the
/// conflicts it settled, the changes the remote refused, and what it cost.
///
/// ``OfflineFirstRepository/sync()`` returns one from each sync (discardable).
/// ``description`` is a line for a log or a debug screen: "sent 3, confirmed 3, received 5
/// (incremental pull), 1 conflict, 0 rejected, 4 requests, 0.25 s".
///
/// Generic over the entity's ID, so a screen finds an entity's refusal with its own ID, as
/// in ``OfflineSnapshot/rejections``: `report.rejections[note.id]`.
public struct SyncReport<ID: Hashable & Sendable>: Sendable, CustomStringConvertible {
    /// How many changes the sync sent to the remote, each counted once however many
    /// requests it took.
    public var sent: Int
    /// How many changes the remote confirmed and left the outbox, those an earlier try had
    /// landed (found on the remote, not sent again) included.
    public var confirmed: Int
    /// How many entities the pull changed here: saved or deleted in the local store.
    public var received: Int
    /// The IDs of the entities whose conflict the sync settled by the ``ConflictPolicy``.
    public var conflictedIDs: Set<ID>
    /// The error the remote refused each change with, by ID: the changes this sync made
    /// ``SyncStatus/rejected(_:)``.
    public var rejections: [ID: RepositoryError]
    /// How many calls the sync made to the remote: reads, writes and the pages of the pull.
    /// A call is not always one HTTP request: a run of writes sent in one call counts once,
    /// and so does a call that `.retrying` tried again.
    public var requests: Int
    /// Whether the pull asked only for what changed since the last one, through the remote's
    /// change feed (``ChangeFeedRepository``); `false` when it read the remote's whole
    /// collection, and ``fullPullReason`` says why.
    public var pullWasIncremental: Bool
    /// Why the pull read the remote's whole collection: the remote has no change feed, this
    /// device had no cursor yet (its first sync through the feed), or the feed refused the
    /// cursor as expired. `nil` when the pull was incremental, or when the sync ended before
    /// it pulled.
    public var fullPullReason: String?
    /// How long the sync took, waiting for its turn excluded.
    public var duration: Duration

    /// Creates a report from its parts; everything is zero or empty unless given.
    public init(
        sent: Int = 0, confirmed: Int = 0, received: Int = 0, conflictedIDs: Set<ID> = [],
        rejections: [ID: RepositoryError] = [:], requests: Int = 0, pullWasIncremental: Bool = false,
        fullPullReason: String? = nil, duration: Duration = .zero
    ) {
        self.sent = sent
        self.confirmed = confirmed
        self.received = received
        self.conflictedIDs = conflictedIDs
        self.rejections = rejections
        self.requests = requests
        self.pullWasIncremental = pullWasIncremental
        self.fullPullReason = fullPullReason
        self.duration = duration
    }

    /// The report in one line: "sent 3, confirmed 2, received 5 (full pull: the remote has no
    /// change feed), 1 conflict, 1 rejected, 4 requests, 0.25 s".
    public var description: String {
        let pull =
            pullWasIncremental ? "incremental pull" : "full pull" + (fullPullReason.map { ": \($0)" } ?? "")
        let conflicts = conflictedIDs.count == 1 ? "1 conflict" : "\(conflictedIDs.count) conflicts"
        let requests = requests == 1 ? "1 request" : "\(requests) requests"
        let (seconds, attoseconds) = duration.components
        let milliseconds = (Double(seconds) * 1_000 + Double(attoseconds) / 1e15).rounded()
        return "sent \(sent), confirmed \(confirmed), received \(received) (\(pull)), \(conflicts), "
            + "\(rejections.count) rejected, \(requests), \(milliseconds / 1_000) s"
    }
}
