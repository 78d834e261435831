import Repositories
import Synchronization

/// The writes waiting for the writer, in arrival order: what lets concurrent writes share one
/// transaction, and so one commit and one fsync (group commit).
///
/// A caller adds its write and waits; the first to arrive while no drain runs is told to
/// start one. The drain (``SQLiteDatabase``, on the writer's queue) takes every write waiting
/// at that moment as one group, commits it, answers each caller, and takes the next group,
/// which collected while the last one committed, until none is left.
///
/// A write is either waiting here or taken into a group; a caller cancelled while its write
/// waits is answered at once with `CancellationError` and its write removed, so it is never
/// applied. Once taken, a write runs to the end whatever happens to its caller's task.
final class SQLiteWriteQueue: Sendable {
    /// A write taken into a group, and the caller waiting for its outcome.
    struct Waiting: Sendable {
        let number: UInt64
        let write: SQLiteWrite
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State: ~Copyable {
        var waiting: [Waiting] = []
        var nextNumber: UInt64 = 0
        /// Whether a drain is running or about to: then a new write only joins the queue.
        var draining = false
        /// The closed siblings, by number, with the location their `closed` error names: a
        /// write to one's table is refused. A sibling opened again later has a number of its own.
        var closedSiblings: [UInt64: String] = [:]
    }

    private let state = Mutex(State())

    /// A number that tells this caller's write apart, for ``cancel(_:)``.
    func ticket() -> UInt64 {
        state.withLock { state in
            defer { state.nextNumber += 1 }
            return state.nextNumber
        }
    }

    /// Adds `write` under `ticket`; returns whether the caller must start a drain, since none
    /// runs. When the calling task is already cancelled, the write is not added:
    /// `continuation` is resumed with `CancellationError` and the answer is `false`; so too,
    /// with `closed`, when the write touches a closed sibling's table (``closeSibling(_:location:)``).
    ///
    /// Checking cancellation under the lock closes the race with ``cancel(_:)``: a cancel that
    /// comes later finds the write here.
    func enqueue(
        _ write: SQLiteWrite, ticket: UInt64, continuation: CheckedContinuation<Void, any Error>
    ) -> Bool {
        let startsDrain = state.withLock { state -> Result<Bool, any Error> in
            if Task.isCancelled { return .failure(CancellationError()) }
            for sibling in write.siblings {
                if let closed = state.closedSiblings[sibling] {
                    return .failure(RepositoryError.closed(location: closed))
                }
            }
            state.waiting.append(Waiting(number: ticket, write: write, continuation: continuation))
            defer { state.draining = true }
            return .success(!state.draining)
        }
        switch startsDrain {
        case .success(let startsDrain): return startsDrain
        case .failure(let error):
            continuation.resume(throwing: error)
            return false
        }
    }

    /// Removes the write of `ticket` and answers its caller with `CancellationError`, when it
    /// still waits; does nothing once it was taken into a group (or never added).
    func cancel(_ ticket: UInt64) {
        let removed = state.withLock { state -> Waiting? in
            guard let index = state.waiting.firstIndex(where: { $0.number == ticket }) else { return nil }
            return state.waiting.remove(at: index)
        }
        removed?.continuation.resume(throwing: CancellationError())
    }

    /// Every write waiting, in arrival order, now taken; or `nil` when none waits, which ends
    /// the drain (the next write starts another).
    ///
    /// - Parameter limit: the most writes one group takes, so one transaction stays small
    ///   enough to commit promptly.
    func takeGroup(limit: Int) -> [Waiting]? {
        state.withLock { state in
            if state.waiting.isEmpty {
                state.draining = false
                return nil
            }
            let count = min(limit, state.waiting.count)
            defer { state.waiting.removeFirst(count) }
            return Array(state.waiting.prefix(count))
        }
    }

    /// Refuses every later write to the table of the sibling numbered `sibling` with `closed`
    /// naming `location`; the writes already waiting still run.
    func closeSibling(_ sibling: UInt64, location: String) {
        state.withLock { $0.closedSiblings[sibling] = location }
    }

    /// How many writes wait to be taken into a group: for tests that line writes up.
    var waitingCount: Int {
        state.withLock { $0.waiting.count }
    }
}
