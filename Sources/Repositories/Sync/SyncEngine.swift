import Synchronization

/// What the copies of one ``OfflineFirstRepository`` share: the order of writes, one sync
/// at a time, the replay of the outbox on first use, and the last sync's error.
///
/// ## Locks, and their one order
///
/// Three locks, always taken in this order and released in reverse, never the other way:
///
/// 1. **One sync at a time** (``whileSyncing(_:)``): held by a sync from start to end.
/// 2. **The write order** (``write(_:_:)``), by entity ID or for all: held by a write from
///    its outbox record to its local write, by a sync while it settles one change
///    (keeps the remote's version, or records a merge) and while a pull applies the remote's
///    state, so no two of them interleave their two steps on one ID.
/// 3. **The outbox's own lock** (inside ``Outbox``), by ID, around each read-modify-write
///    of its records.
///
/// Writes take only 2 then 3; a sync takes 1, and 2 then 3 around each step. No code waits
/// for 1 while holding 2 or 3, so nothing deadlocks. Everything run under the write order
/// runs to the end once begun, whatever is cancelled (see ``runningToCompletion(_:)``).
final class SyncEngine<ID: Hashable & Sendable>: Sendable {
    private struct State {
        var prepared = false
        var lastSyncError: RepositoryError?
        var automaticRunning = false
        var automaticAgain = false
        var stopped = false
        var intervalLoop: Task<Void, Never>?
        /// The task running automatic syncs and their backoff waits, while one runs.
        var runner: Task<Void, Never>?
        /// How many write sections have begun, and how many are under way (see ``writes``).
        var writes = WriteCount()
    }

    /// How many write sections (``write(_:_:)``) have begun since the engine was made, and
    /// how many are under way now: a snapshot taken while none is under way, and before
    /// another begins, sees no write half done.
    struct WriteCount: Sendable {
        var begun = 0
        var underWay = 0
    }

    /// The write sections begun and under way now.
    var writes: WriteCount { state.withLock { $0.writes } }

    /// Lock 2, the write order (see the type's documentation).
    private let writeOrder = KeyedAsyncLock<ID>()
    /// Lock 1, one sync at a time.
    private let syncOrder = KeyedAsyncLock<Int>()
    let automatic: AutomaticSync?
    private let jitter: JitterSource
    private let state = Mutex(State())
    private let preparing = KeyedAsyncLock<Int>()

    /// Told after every write and every sync, for the snapshot streams.
    let updates = ChangeBroadcaster<Void>()

    init(automatic: AutomaticSync?) {
        self.automatic = automatic
        self.jitter = JitterSource(seed: automatic?.backoff.seed ?? UInt64.random(in: 0...UInt64.max))
    }

    var lastSyncError: RepositoryError? { state.withLock { $0.lastSyncError } }

    /// Runs `body` as the one sync running (lock 1); a caller that arrives during another
    /// waits and runs after it.
    func whileSyncing<T>(_ body: () async throws -> T) async throws -> T {
        try await syncOrder.withLock(.all, body)
    }

    /// Runs `body` holding `scope` of the write order (lock 2): a caller cancelled while it
    /// waits gets `CancellationError` with nothing done; once `body` begins it runs to the
    /// end, and the caller gets its result, whatever is cancelled meanwhile.
    func write<T: Sendable>(_ scope: KeyScope<ID>, _ body: @escaping @Sendable () async throws -> T)
        async throws -> T
    {
        try await writeOrder.withLock(scope) {
            try Task.checkCancellation()
            state.withLock {
                $0.writes.begun += 1
                $0.writes.underWay += 1
            }
            defer {
                state.withLock { $0.writes.underWay -= 1 }
                updates.send(())
            }
            return try await runningToCompletion(body)
        }
    }

    func syncEnded(with error: (any Error)?) {
        state.withLock { $0.lastSyncError = error.map(RepositoryError.wrapping) }
        updates.send(())
    }

    /// Runs `replay` once, before the first call; a replay that throws runs again next time.
    func prepareOnce(_ replay: () async throws -> Void) async throws {
        if state.withLock({ $0.prepared }) { return }
        try await preparing.withLock(.all) {
            if state.withLock({ $0.prepared }) { return }
            try await replay()
            state.withLock { $0.prepared = true }
        }
    }

    /// Starts `sync` in the background when automatic sync is on; while one runs, one more
    /// follows it, so a change made during a sync is sent too. A sync that fails because the
    /// remote is unreachable or busy is tried again after the backoff's delays, for as long
    /// as it takes, until one works or ``stop()``.
    func changed(sync: @escaping @Sendable () async throws -> Void) {
        updates.send(())
        guard let automatic else { return }
        let start = state.withLock { state -> Bool in
            guard !state.stopped else { return false }
            if state.automaticRunning {
                state.automaticAgain = true
                return false
            }
            state.automaticRunning = true
            return true
        }
        guard start else { return }
        let runner = Task {
            var failures = 0
            while true {
                do {
                    try await sync()
                    failures = 0
                } catch  where SyncFailure.isTransient(error) {
                    // The remote cannot be reached: try again after the backoff's delay, which
                    // grows to its maxDelay and stays there, until a sync works or stop().
                    failures += 1
                    do {
                        try await automatic.sleep(jitter.delay(automatic.backoff, beforeRetry: failures))
                        if !isStopped { continue }
                    } catch {
                        // Cancelled while waiting: stop retrying; the next write starts again.
                    }
                } catch {
                    // Kept where the app reads it: lastSyncError and each change's status.
                }
                if !takeAnother() { return }
            }
        }
        state.withLock { state in
            // A runner that already ended has set automaticRunning back; keep no handle then.
            if state.automaticRunning { state.runner = runner }
        }
        if isStopped { runner.cancel() }
    }

    private var isStopped: Bool { state.withLock { $0.stopped } }

    /// Whether another sync was asked for while this one ran; if not, the runner ends.
    private func takeAnother() -> Bool {
        state.withLock { state in
            if state.automaticAgain, !state.stopped {
                state.automaticAgain = false
                return true
            }
            state.automaticRunning = false
            state.runner = nil
            return false
        }
    }

    /// Starts the interval loop once, when the automatic sync has an interval.
    func startInterval(sync: @escaping @Sendable () async throws -> Void) {
        guard let automatic, let interval = automatic.interval else { return }
        state.withLock { state in
            guard state.intervalLoop == nil, !state.stopped else { return }
            state.intervalLoop = Task { [weak self] in
                while !Task.isCancelled {
                    do {
                        try await automatic.sleep(interval)
                    } catch {
                        return
                    }
                    self?.changed(sync: sync)
                }
            }
        }
    }

    /// Stops syncing by itself: the interval loop ends, a backoff wait ends at once (a sync
    /// the runner had under way is cancelled), and no automatic sync starts again.
    func stop() {
        let (loop, runner) = state.withLock { state in
            state.stopped = true
            defer {
                state.intervalLoop = nil
                state.runner = nil
            }
            return (state.intervalLoop, state.runner)
        }
        loop?.cancel()
        runner?.cancel()
    }
}
