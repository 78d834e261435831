import Synchronization

/// An asynchronous lock over keys: a holder of some keys excludes other holders of those
/// keys, and a holder of every key excludes everyone.
///
/// Decorators use it to make "check that no write happened, then fill the cache" one step
/// with respect to "note the write, then invalidate the cache", so a fill that raced a
/// write can never land after the invalidation. Waiters are served first come, first
/// served among those that conflict; a waiter never overtakes an earlier conflicting one.
/// Waiting is not cancellable: every critical section is one call to a store.
final class KeyedAsyncLock<Key: Hashable & Sendable>: Sendable {
    typealias Scope = KeyScope<Key>

    private struct Waiter {
        var scope: Scope
        var continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var heldKeys: [Key: Int] = [:]
        var allHeld = false
        var waiters: [Waiter] = []

        func isFree(for scope: Scope) -> Bool {
            if allHeld { return false }
            switch scope {
            case .all: return heldKeys.isEmpty
            case .keys(let keys): return keys.allSatisfy { heldKeys[$0] == nil }
            }
        }

        mutating func take(_ scope: Scope) {
            switch scope {
            case .all: allHeld = true
            case .keys(let keys): for key in keys { heldKeys[key, default: 0] += 1 }
            }
        }

        mutating func give(_ scope: Scope) {
            switch scope {
            case .all: allHeld = false
            case .keys(let keys):
                for key in keys {
                    let count = (heldKeys[key] ?? 1) - 1
                    heldKeys[key] = count > 0 ? count : nil
                }
            }
        }

        /// Whether `scope` may be taken now without overtaking a conflicting earlier waiter.
        func mayTake(_ scope: Scope, ahead: ArraySlice<Waiter>) -> Bool {
            isFree(for: scope) && !ahead.contains { $0.scope.conflicts(with: scope) }
        }
    }

    private let state = Mutex(State())

    /// How many callers are waiting to take a scope: a test hook, so a test knows a caller
    /// has queued before it starts the next one.
    var waiterCount: Int { state.withLock { $0.waiters.count } }

    /// Runs `body` holding `scope`.
    func withLock<T>(_ scope: Scope, _ body: () async throws -> T) async rethrows -> T {
        await acquire(scope)
        do {
            let result = try await body()
            release(scope)
            return result
        } catch {
            release(scope)
            throw error
        }
    }

    /// Runs `body` holding `key`.
    func withLock<T>(_ key: Key, _ body: () async throws -> T) async rethrows -> T {
        try await withLock(.keys([key]), body)
    }

    private func acquire(_ scope: Scope) async {
        let taken = state.withLock { state in
            guard state.mayTake(scope, ahead: state.waiters[...]) else { return false }
            state.take(scope)
            return true
        }
        if taken { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let takenNow = state.withLock { state in
                guard state.mayTake(scope, ahead: state.waiters[...]) else {
                    state.waiters.append(Waiter(scope: scope, continuation: continuation))
                    return false
                }
                state.take(scope)
                return true
            }
            if takenNow { continuation.resume() }
        }
    }

    private func release(_ scope: Scope) {
        let granted = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.give(scope)
            var granted: [CheckedContinuation<Void, Never>] = []
            var index = 0
            while index < state.waiters.count {
                let waiter = state.waiters[index]
                if state.mayTake(waiter.scope, ahead: state.waiters[..<index]) {
                    state.take(waiter.scope)
                    granted.append(waiter.continuation)
                    state.waiters.remove(at: index)
                } else {
                    index += 1
                }
            }
            return granted
        }
        for continuation in granted { continuation.resume() }
    }
}
