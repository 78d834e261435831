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
/// for 1 while holding 2 or 3, so nothing deadlocks.
///
/// A member of a ``SyncGroup`` does not take 1: its sync is the group's, which holds the
/// group's own lock in this process, then the group's file lock, then each member outbox's
/// sync lock in the order of their type names, and inside them takes 2 then 3 around each
/// step of each member, as above. A write never waits for any of the group's locks. Everything run under the write order
/// runs to the end once begun, whatever is cancelled (see ``runningToCompletion(_:)``).
final class SyncEngine<Entity: Identifiable & Sendable>: Sendable where Entity.ID: Sendable {
    typealias ID = Entity.ID

    private struct State {
        var prepared = false
        var lastSyncError: RepositoryError?
        var automaticRunning = false
        var automaticAgain = false
        var stopped = false
        var intervalLoop: Task<Void, Never>?
        /// Whether the network is up, as the reachability signal last said (up without one).
        var reachable = true
        /// Whether a sync was wanted while the network was down.
        var missedWhileOffline = false
        /// The task following the reachability signal, while one is followed.
        var watching: Task<Void, Never>?
        /// The runner's wait before its next try, while it waits.
        var backoffWait: Task<Void, any Error>?
        /// Whether the network came back while the runner's sync was under way: when that
        /// sync fails, the runner tries again at once instead of waiting out a backoff.
        var returnedDuringTry = false
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
    let updates = LocalUpdateFeed<Entity>()

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
    /// end, and the caller gets its result, whatever is cancelled meanwhile. The snapshot
    /// streams then read everything again.
    func write<T: Sendable>(_ scope: KeyScope<ID>, _ body: @escaping @Sendable () async throws -> T)
        async throws -> T
    {
        try await section(scope, body, report: { _ in .reread })
    }

    /// ``write(_:_:)`` of a `body` that returns what it wrote to the local store, which the
    /// snapshot streams take as it is instead of reading again (when it throws, they read).
    func writeReported(
        _ scope: KeyScope<ID>, _ body: @escaping @Sendable () async throws -> [LocalWrite<Entity>]
    ) async throws -> [LocalWrite<Entity>] {
        try await section(scope, body, report: LocalUpdate.wrote)
    }

    /// A write section: `body` under lock 2, counted in ``writes``, telling the snapshot
    /// streams `report` of its result. The update is queued before the section ends and the
    /// streams are woken after, so a stream that finds no write under way holds every
    /// finished write's update.
    private func section<T: Sendable>(
        _ scope: KeyScope<ID>, _ body: @escaping @Sendable () async throws -> T,
        report: @escaping @Sendable (T) -> LocalUpdate<Entity>
    ) async throws -> T {
        try await writeOrder.withLock(scope) {
            try Task.checkCancellation()
            state.withLock {
                $0.writes.begun += 1
                $0.writes.underWay += 1
            }
            var update = LocalUpdate<Entity>.reread
            defer {
                updates.enqueue(update)
                state.withLock { $0.writes.underWay -= 1 }
                updates.wake()
            }
            let result = try await runningToCompletion(body)
            update = report(result)
            return result
        }
    }

    func syncEnded(with error: (any Error)?) {
        state.withLock { $0.lastSyncError = error.map(RepositoryError.wrapping) }
        updates.send(.refreshed)
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
        guard let automatic else { return }
        let start = state.withLock { state -> Bool in
            guard !state.stopped else { return false }
            guard state.reachable else {
                // The network is down: the sync starts when it returns.
                state.missedWhileOffline = true
                return false
            }
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
                state.withLock { $0.returnedDuringTry = false }
                do {
                    try await sync()
                    failures = 0
                } catch  where SyncFailure.isTransient(error) {
                    // The network is down: no retry on a timer; the sync starts again when it
                    // returns (see startWatching(sync:)).
                    if endWhileOffline() { return }
                    // The network came back while this try was under way: try again now.
                    if state.withLock({ state in
                        defer { state.returnedDuringTry = false }
                        return state.returnedDuringTry
                    }) {
                        continue
                    }
                    // The remote cannot be reached: try again after the backoff's delay, which
                    // grows to its maxDelay and stays there, until a sync works or stop().
                    failures += 1
                    // Waited out, or cut short by the network's return: try again now.
                    // Cancelled (stopped): stop retrying; the next write starts again.
                    if await waitBeforeRetry(
                        jitter.delay(automatic.backoff, beforeRetry: failures), automatic),
                        !isStopped
                    {
                        continue
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

    /// Waits `delay` on the automatic sync's clock, in a task of its own that the network's
    /// return cuts short (``startWatching(sync:)``) and ``stop()`` cancels; whether the runner
    /// should try again (not cancelled).
    private func waitBeforeRetry(_ delay: Duration, _ automatic: AutomaticSync) async -> Bool {
        let wait = Task { try await automatic.sleep(delay) }
        state.withLock { $0.backoffWait = wait }
        let result = await withTaskCancellationHandler {
            await wait.result
        } onCancel: {
            wait.cancel()
        }
        state.withLock { $0.backoffWait = nil }
        if case .failure = result { return !Task.isCancelled && !isStopped }
        return true
    }

    /// Ends the runner when the network is down, noting that a sync is wanted when it
    /// returns; whether it ended.
    private func endWhileOffline() -> Bool {
        state.withLock { state in
            guard !state.reachable else { return false }
            state.missedWhileOffline = true
            state.automaticAgain = false
            state.automaticRunning = false
            state.runner = nil
            return true
        }
    }

    /// Follows the automatic sync's reachability signal once, when it has one: the network
    /// going down holds syncs back; coming back up starts one.
    func startWatching(sync: @escaping @Sendable () async throws -> Void) {
        guard let automatic, let reachability = automatic.reachability else { return }
        state.withLock { state in
            guard state.watching == nil, !state.stopped else { return }
            // Known at once, so a write made before the task below runs already waits.
            state.reachable = reachability.isReachable
            state.watching = Task { [weak self] in
                for await reachable in reachability.reachability() {
                    guard let self else { return }
                    let (start, wait) = self.state.withLock { state -> (Bool, Task<Void, any Error>?) in
                        let wasReachable = state.reachable
                        state.reachable = reachable
                        guard reachable, !state.stopped else { return (false, nil) }
                        defer { state.missedWhileOffline = false }
                        // A try under way, begun while the network was down, may fail for it.
                        if !wasReachable, state.automaticRunning, state.backoffWait == nil {
                            state.returnedDuringTry = true
                        }
                        return (
                            !wasReachable || state.missedWhileOffline, wasReachable ? nil : state.backoffWait
                        )
                    }
                    // Back online: a runner waiting out a backoff, or whose try under way fails,
                    // tries again at once.
                    wait?.cancel()
                    if start { self.changed(sync: sync) }
                }
            }
        }
    }

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
    /// the runner had under way is cancelled), the reachability signal is no longer followed,
    /// and no automatic sync starts again.
    func stop() {
        let (loop, runner, watching) = state.withLock { state in
            state.stopped = true
            defer {
                state.intervalLoop = nil
                state.runner = nil
                state.watching = nil
            }
            return (state.intervalLoop, state.runner, state.watching)
        }
        loop?.cancel()
        runner?.cancel()
        watching?.cancel()
    }
}
