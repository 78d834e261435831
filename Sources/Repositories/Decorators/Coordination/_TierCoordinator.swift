import Foundation
import Synchronization

/// The bookkeeping a decorator with a second store (a cache, a local mirror) shares among
/// its copies: which reads raced a write, which copies are suspect, the reads in flight,
/// and what is known about the whole collection.
///
/// The rules it enforces:
///
/// - A writer calls ``noteWrite(_:)`` after its primary write and before it touches the
///   second store, then changes the second store while holding ``lock`` for the keys.
/// - A reader registers with ``tracker`` before it reads the primary, and copies what it
///   read with ``fill(_:token:operation:_:)``, which holds the same lock and copies only
///   when no write was noted since the read began.
///
/// So a copy of an older value either lands before a writer's change to the second store
/// (which then replaces or removes it) or is not made at all.
///
/// ``suspects`` and ``read(_:_:)`` are on the decorators' hit paths, which are inlinable
/// (see ``CacheAsideRepository/fetch(id:)``), so they are visible to inlined code.
@usableFromInline
final class _TierCoordinator<ID: Hashable & Sendable, Entity: Sendable>: Sendable {
    /// What is known about the whole collection: its IDs in order, as of `storedAt`.
    struct WholeSet: Sendable {
        var ids: [ID]
        var storedAt: Date?
    }

    enum Whole: Hashable, Sendable { case collection }

    private struct Marker {
        var wholeSet: WholeSet?
        /// Counts writes, so a whole-collection read that raced one does not record itself.
        var writes: UInt64 = 0
    }

    let tracker = ReadTracker<ID>()
    let lock = KeyedAsyncLock<ID>()
    @usableFromInline let suspects = _SuspectKeys<ID>()
    let byID = SingleFlight<ID, Entity?>()
    let whole = SingleFlight<Whole, [Entity]>()
    @usableFromInline let report: @Sendable (TierFailure) -> Void
    private let marker = Mutex(Marker())

    init(report: @escaping @Sendable (TierFailure) -> Void) {
        self.report = report
    }

    /// How many callers are waiting on a shared read.
    var waitingCallerCount: Int { byID.waitingCallerCount + whole.waitingCallerCount }

    /// The whole collection as last recorded, if no write happened since.
    var wholeSet: WholeSet? { marker.withLock { $0.wholeSet } }

    /// How many writes were noted so far; pass it to ``recordWholeSet(_:ifWritesAre:)``.
    var writeCount: UInt64 { marker.withLock { $0.writes } }

    /// Records the whole collection, unless a write was noted since `writes` was read.
    func recordWholeSet(_ wholeSet: WholeSet, ifWritesAre writes: UInt64) {
        marker.withLock { marker in
            if marker.writes == writes { marker.wholeSet = wholeSet }
        }
    }

    /// Forgets the whole collection.
    func forgetWholeSet() {
        marker.withLock { $0.wholeSet = nil }
    }

    /// Notes a write of `scope`: reads in flight that overlap it will not copy what they
    /// read, later callers do not join them, and the whole collection is forgotten.
    func noteWrite(_ scope: KeyScope<ID>) {
        tracker.noteWrite(scope)
        marker.withLock { marker in
            marker.writes += 1
            marker.wholeSet = nil
        }
        switch scope {
        case .all: byID.detachAll()
        case .keys(let keys): for key in keys { byID.detach(key) }
        }
        whole.detachAll()
    }

    /// Runs `copy` holding the lock for `scope`, unless a write overlapping the read `token`
    /// was noted. On success the copies in `scope` stop being suspect; on failure they
    /// become suspect and the failure is reported. Returns whether the copy was made.
    @discardableResult
    func fill(
        _ scope: KeyScope<ID>, token: UInt64, operation: RepositoryOperation,
        _ copy: () async throws -> Void
    ) async -> Bool {
        await lock.withLock(scope) {
            guard tracker.isClean(token) else { return false }
            do {
                try await copy()
                suspects.clear(scope)
                return true
            } catch {
                suspects.mark(scope)
                report(TierFailure(stage: .fill, operation: operation, error: error))
                return false
            }
        }
    }

    /// Runs a read of the second store; a failure (other than cancellation) is reported and
    /// read as `nil`, so the caller goes to the primary store.
    @inlinable
    func read<T>(_ operation: RepositoryOperation, _ body: () async throws -> T) async throws -> T? {
        do {
            return try await body()
        } catch {
            try readFailed(operation, error)
            return nil
        }
    }

    /// Rethrows a cancellation; reports any other failure of a read of the second store.
    @usableFromInline
    func readFailed(_ operation: RepositoryOperation, _ error: any Error) throws {
        if error is CancellationError || Task.isCancelled { throw error }
        report(TierFailure(stage: .read, operation: operation, error: error))
    }
}
