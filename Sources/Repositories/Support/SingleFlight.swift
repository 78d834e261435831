import Synchronization

/// Runs one call per key at a time and hands its result to every caller that asked for
/// that key meanwhile: the in-flight de-duplication behind ``CoalescingRepository`` and the
/// miss path of ``CacheAsideRepository``.
///
/// The shared call runs in its own task. A caller that is cancelled stops waiting at once
/// with `CancellationError`; the shared call is cancelled only when every caller waiting on
/// it has gone. ``detach(_:)`` and ``detachAll()`` make later callers start a fresh call
/// (a write happened, so an answer begun before it must not be handed to readers that
/// began after it), while callers already waiting still get the detached call's answer.
final class SingleFlight<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Flight {
        var number: UInt64
        var waiters: [UInt64: CheckedContinuation<Value, any Error>] = [:]
        var task: Task<Void, Never>?
    }

    private struct State {
        var nextNumber: UInt64 = 0
        /// The flights new callers join, by key.
        var joinable: [Key: UInt64] = [:]
        /// Every flight still running, joinable or detached, by number.
        var flights: [UInt64: Flight] = [:]
        /// Callers whose cancellation arrived before they registered.
        var cancelledEarly: Set<UInt64> = []
    }

    private let state = Mutex(State())

    /// How many callers are waiting on a shared call now.
    var waitingCallerCount: Int {
        state.withLock { state in state.flights.values.reduce(0) { $0 + $1.waiters.count } }
    }

    /// Returns the result of `operation` for `key`, joining the call already running for it.
    func run(_ key: Key, _ operation: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let caller = state.withLock { state in
            defer { state.nextNumber += 1 }
            return state.nextNumber
        }
        // A cancellation that lands after the answer arrived would otherwise stay recorded.
        defer { state.withLock { _ = $0.cancelledEarly.remove(caller) } }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<Value, any Error>) in
                let cancelled = state.withLock { state -> Bool in
                    if state.cancelledEarly.remove(caller) != nil { return true }
                    if let number = state.joinable[key] {
                        state.flights[number]?.waiters[caller] = continuation
                        return false
                    }
                    let number = state.nextNumber
                    state.nextNumber += 1
                    var flight = Flight(number: number)
                    flight.waiters[caller] = continuation
                    flight.task = Task {
                        let result: Result<Value, any Error>
                        do {
                            result = .success(try await operation())
                        } catch {
                            result = .failure(error)
                        }
                        self.finish(number, key: key, with: result)
                    }
                    state.flights[number] = flight
                    state.joinable[key] = number
                    return false
                }
                if cancelled { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            leave(caller)
        }
    }

    /// Makes callers that arrive from now on for `key` start a fresh call.
    func detach(_ key: Key) {
        state.withLock { _ = $0.joinable.removeValue(forKey: key) }
    }

    /// Makes callers that arrive from now on, for any key, start a fresh call.
    func detachAll() {
        state.withLock { $0.joinable.removeAll() }
    }

    private func finish(_ number: UInt64, key: Key, with result: Result<Value, any Error>) {
        let waiters = state.withLock { state -> [CheckedContinuation<Value, any Error>] in
            if state.joinable[key] == number { state.joinable.removeValue(forKey: key) }
            return state.flights.removeValue(forKey: number).map { Array($0.waiters.values) } ?? []
        }
        for waiter in waiters { waiter.resume(with: result) }
    }

    private func leave(_ caller: UInt64) {
        let (waiter, abandoned) = state.withLock {
            state -> (CheckedContinuation<Value, any Error>?, Task<Void, Never>?) in
            for (number, flight) in state.flights {
                guard let waiter = flight.waiters[caller] else { continue }
                state.flights[number]?.waiters.removeValue(forKey: caller)
                guard flight.waiters.count == 1 else { return (waiter, nil) }
                // The last caller left: nobody wants the answer, so stop the call.
                state.flights.removeValue(forKey: number)
                state.joinable = state.joinable.filter { $0.value != number }
                return (waiter, flight.task)
            }
            state.cancelledEarly.insert(caller)
            return (nil, nil)
        }
        abandoned?.cancel()
        waiter?.resume(throwing: CancellationError())
    }
}
