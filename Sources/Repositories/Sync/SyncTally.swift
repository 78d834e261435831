import Synchronization

/// What one sync has done so far, counted as it goes and read once at its end as a
/// ``SyncReport``: one per sync, shared by the steps of the push and the pull.
final class SyncTally<ID: Hashable & Sendable>: Sendable {
    private struct Counts {
        var sent: Set<ID> = []
        var confirmed = 0
        var received = 0
        var conflicted: Set<ID> = []
        var rejections: [ID: RepositoryError] = [:]
        var requests = 0
        var pullWasIncremental = false
        var fullPullReason: String?
    }

    private let counts = Mutex(Counts())

    /// `count` calls were made to the remote.
    func requested(_ count: Int = 1) { counts.withLock { $0.requests += count } }
    /// The changes to `ids` went out in a request.
    func sent(_ ids: some Sequence<ID>) { counts.withLock { $0.sent.formUnion(ids) } }
    /// `count` changes left the outbox, the remote having taken them.
    func confirmed(_ count: Int) { counts.withLock { $0.confirmed += count } }
    /// The policy settled a conflict over `id`.
    func conflicted(_ id: ID) { counts.withLock { _ = $0.conflicted.insert(id) } }
    /// The remote refused the changes to `ids` with `error`; they are rejected.
    func rejected(_ ids: some Sequence<ID>, with error: any Error) {
        let error = RepositoryError.wrapping(error)
        counts.withLock { counts in
            for id in ids { counts.rejections[id] = error }
        }
    }
    /// The pull saved or deleted `count` entities here.
    func received(_ count: Int) { counts.withLock { $0.received += count } }

    /// The pull asked only for what changed (`reason` `nil`), or read the whole collection
    /// for `reason`.
    func pulled(fullPullReason reason: String?) {
        counts.withLock { counts in
            counts.pullWasIncremental = reason == nil
            counts.fullPullReason = reason
        }
    }

    /// The report of the sync, which took `duration`.
    func report(duration: Duration) -> SyncReport<ID> {
        counts.withLock { counts in
            SyncReport(
                sent: counts.sent.count, confirmed: counts.confirmed, received: counts.received,
                conflictedIDs: counts.conflicted, rejections: counts.rejections, requests: counts.requests,
                pullWasIncremental: counts.pullWasIncremental, fullPullReason: counts.fullPullReason,
                duration: duration)
        }
    }
}
