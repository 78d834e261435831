import Synchronization

/// The first of a call and a timer to finish decides the outcome; the other's task is
/// cancelled. Cancelling the caller cancels the call, whose outcome still decides (the
/// timer keeps bounding the wait).
final class TimeoutRace<Value: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Value, any Error>?
        var outcome: Result<Value, any Error>?
        var tasks: [Task<Void, Never>] = []
        var work: Task<Void, Never>?
        var cancelled = false
    }

    private let state = Mutex(State())

    /// Hands the outcome to `continuation`, now if it is already known.
    func install(_ continuation: CheckedContinuation<Value, any Error>) {
        let outcome = state.withLock { state -> Result<Value, any Error>? in
            guard let outcome = state.outcome else {
                state.continuation = continuation
                return nil
            }
            return outcome
        }
        if let outcome { continuation.resume(with: outcome) }
    }

    /// Keeps `task` to cancel once the outcome is known; cancels it now if it is.
    func add(_ task: Task<Void, Never>) {
        let decided = state.withLock { state in
            if state.outcome == nil { state.tasks.append(task) }
            return state.outcome != nil
        }
        if decided { task.cancel() }
    }

    /// Keeps the task running the call, to cancel it with ``cancelWork()``.
    func setWork(_ task: Task<Void, Never>) {
        add(task)
        let cancelNow = state.withLock { state in
            state.work = task
            return state.cancelled
        }
        if cancelNow { task.cancel() }
    }

    /// Cancels the call, now or as soon as it is set; its outcome still decides.
    func cancelWork() {
        let work = state.withLock { state in
            state.cancelled = true
            return state.work
        }
        work?.cancel()
    }

    /// Decides the outcome, unless it was decided already.
    func finish(_ outcome: Result<Value, any Error>) {
        let decided = state.withLock {
            state -> (CheckedContinuation<Value, any Error>?, [Task<Void, Never>])? in
            guard state.outcome == nil else { return nil }
            state.outcome = outcome
            defer {
                state.continuation = nil
                state.tasks = []
                state.work = nil
            }
            return (state.continuation, state.tasks)
        }
        guard let (continuation, tasks) = decided else { return }
        for task in tasks { task.cancel() }
        continuation?.resume(with: outcome)
    }
}
