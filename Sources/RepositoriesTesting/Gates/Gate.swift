import Synchronization

/// Holds a call in a test double until the test opens it, and tells the test when the call
/// has arrived: a test looks at the state in the middle of a call, or chooses the order in
/// which overlapping calls answer, without sleeping.
///
/// ```swift
/// let gate = Gate()
/// var products = AnyRepository<Product, Int>.unimplemented("products")
/// products.onFetchAll = {
///     await gate.pass()                  // the call waits here…
///     return [.milk, .bread]
/// }
/// let model = ProductsModel(repository: products)
///
/// let load = Task { await model.load() }
/// await gate.waitForArrival()            // …once it is there, the test looks
/// #expect(model.isLoading)
/// gate.open()                            // and lets it answer
/// await load.value
/// #expect(!model.isLoading)
/// ```
///
/// A gate opens once and stays open: every waiting call, and every later one, passes.
/// To hold several calls and release them one by one, give each its own gate; ``Gates``
/// hands them out in the order the calls arrive.
///
/// A call whose task is cancelled stops waiting at once, as a well-behaved network call
/// ends when cancelled; check `Task.isCancelled` after ``pass()`` to answer as such a call
/// would.
public final class Gate: Sendable {
    private struct State {
        var isOpen = false
        var arrivals = 0
        /// Arrivals already handed to a ``waitForArrival()`` call.
        var arrivalsAwaited = 0
        var nextToken = 0
        /// Calls waiting in ``pass()``, by token.
        var passing: [Int: CheckedContinuation<Void, Never>] = [:]
        /// Callers of ``waitForArrival()``, by token, each with the arrival it waits for.
        var watching: [Int: (arrival: Int, continuation: CheckedContinuation<Void, Never>)] = [:]
        /// Tokens whose task was cancelled before they started waiting.
        var cancelled: Set<Int> = []

        mutating func token() -> Int {
            defer { nextToken += 1 }
            return nextToken
        }

        /// Removes and returns the watchers whose arrival has happened.
        mutating func arrivedWatchers() -> [CheckedContinuation<Void, Never>] {
            let due = watching.filter { $0.value.arrival < arrivals }
            for token in due.keys { watching.removeValue(forKey: token) }
            return due.values.map(\.continuation)
        }
    }

    private let state = Mutex(State())

    /// A closed gate.
    public init() {}

    /// Whether ``open()`` was called.
    public var isOpen: Bool { state.withLock { $0.isOpen } }

    /// How many calls have reached ``pass()`` so far.
    public var arrivals: Int { state.withLock { $0.arrivals } }

    /// Called by the double: announces the call, then waits until ``open()`` (or until the
    /// task is cancelled). Returns at once when the gate is already open.
    public func pass() async {
        let (token, arrived) = state.withLock { state in
            state.arrivals += 1
            return (state.token(), state.arrivedWatchers())
        }
        for watcher in arrived { watcher.resume() }
        await wait(token) { state, continuation in
            guard !state.isOpen else { return false }
            state.passing[token] = continuation
            return true
        }
    }

    /// Waits until a call has reached ``pass()``: the first call to this method waits for the
    /// first arrival, the second for the second, and so on. Returns at once for an arrival
    /// that has already happened, or when the task is cancelled.
    public func waitForArrival() async {
        let (token, arrival) = state.withLock { state in
            defer { state.arrivalsAwaited += 1 }
            return (state.token(), state.arrivalsAwaited)
        }
        await wait(token) { state, continuation in
            guard arrival >= state.arrivals else { return false }
            state.watching[token] = (arrival, continuation)
            return true
        }
    }

    /// Lets every waiting call through, and every later one.
    public func open() {
        let waiting = state.withLock { state in
            state.isOpen = true
            defer { state.passing.removeAll() }
            return Array(state.passing.values)
        }
        for continuation in waiting { continuation.resume() }
    }

    /// Suspends until resumed, unless `register` (called under the lock) declines to store
    /// the continuation, or the task is cancelled.
    private func wait(
        _ token: Int,
        register: (inout State, CheckedContinuation<Void, Never>) -> Bool
    ) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let waits = state.withLock { state in
                    if state.cancelled.remove(token) != nil { return false }
                    return register(&state, continuation)
                }
                if !waits { continuation.resume() }
            }
        } onCancel: {
            let waiting = state.withLock { state -> CheckedContinuation<Void, Never>? in
                if let continuation = state.passing.removeValue(forKey: token) { return continuation }
                if let watcher = state.watching.removeValue(forKey: token) { return watcher.continuation }
                state.cancelled.insert(token)
                return nil
            }
            waiting?.resume()
        }
        // A cancellation that arrived after the wait ended must not stay recorded.
        state.withLock { _ = $0.cancelled.remove(token) }
    }
}
