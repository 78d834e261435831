import Synchronization

/// What the copies of one ``OfflineFirstRepository`` share: the order of writes, one sync
/// at a time, the replay of the outbox on first use, and the last sync's error.
final class SyncEngine<ID: Hashable & Sendable>: Sendable {
    private struct State {
        var prepared = false
        var lastSyncError: RepositoryError?
        var automaticRunning = false
        var automaticAgain = false
    }

    /// Held by a write from its outbox record to its local write, and by a pull while it
    /// applies the remote's state, so neither lands between the other's two steps.
    let writeOrder = KeyedAsyncLock<ID>()
    /// Held by a sync from start to end: one at a time.
    let syncOrder = KeyedAsyncLock<Int>()
    let automaticSync: Bool
    private let state = Mutex(State())
    private let preparing = KeyedAsyncLock<Int>()

    init(automaticSync: Bool) {
        self.automaticSync = automaticSync
    }

    var lastSyncError: RepositoryError? { state.withLock { $0.lastSyncError } }

    func syncEnded(with error: (any Error)?) {
        state.withLock { $0.lastSyncError = error.map(RepositoryError.wrapping) }
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
    /// follows it, so a change made during a sync is sent too.
    func changed(sync: @escaping @Sendable () async throws -> Void) {
        guard automaticSync else { return }
        let start = state.withLock { state -> Bool in
            if state.automaticRunning {
                state.automaticAgain = true
                return false
            }
            state.automaticRunning = true
            return true
        }
        guard start else { return }
        Task {
            while true {
                do {
                    try await sync()
                } catch {
                    // Kept where the app reads it: lastSyncError and each change's status.
                }
                let again = state.withLock { state -> Bool in
                    if state.automaticAgain {
                        state.automaticAgain = false
                        return true
                    }
                    state.automaticRunning = false
                    return false
                }
                if !again { return }
            }
        }
    }
}
