import Repositories
import RepositoriesTesting
import Synchronization
import Testing

@testable import NumberFacts

/// A fact source whose requests wait until the test opens them, one by one, so a test can
/// have two requests in flight at once without sleeping.
///
/// Like a network call that answers anyway, a request does not stop when its task is
/// cancelled: it answers once opened, and records whether its task was cancelled by then.
/// Each answer names its request: `"5 is the answer to request 0."`.
final class FactGate: Sendable {
    private struct State {
        var arrivals = 0
        var waiting: [Int: CheckedContinuation<Void, Never>] = [:]
        var opened: Set<Int> = []
        var cancelled: [Int: Bool] = [:]
    }

    private let state = Mutex(State())

    /// A gate with no request yet.
    init() {}

    /// The `numberFact` dependency to give the feature: `fetch(id:)` waits at the gate;
    /// every other call is unimplemented.
    var repository: AnyRepository<NumberFact, Int> {
        var facts = AnyRepository<NumberFact, Int>.unimplemented("numberFact")
        facts.onFetch = { [self] number in
            let request = await pass()
            return Self.answer(about: number, request: request)
        }
        return facts
    }

    /// The fact request number `request` answers with.
    static func answer(about number: Int, request: Int) -> NumberFact {
        NumberFact(id: number, text: "\(number) is the answer to request \(request).")
    }

    /// Waits until `count` requests have reached the gate.
    @MainActor
    func waitForRequests(_ count: Int, sourceLocation: SourceLocation = #_sourceLocation) async {
        // A guard against hanging, as the test store's (see `TestStore.init`), not a speed limit.
        let arrived = await yieldWhile(timeout: .seconds(300)) { state.withLock { $0.arrivals } < count }
        if !arrived {
            Issue.record("Expected \(count) request(s) at the gate", sourceLocation: sourceLocation)
        }
    }

    /// Lets request number `request` (counting from 0) answer.
    func open(_ request: Int) {
        let waiter = state.withLock { state in
            state.opened.insert(request)
            return state.waiting.removeValue(forKey: request)
        }
        waiter?.resume()
    }

    /// Whether request `request`'s task was cancelled when it answered; `nil` before then.
    func wasCancelled(_ request: Int) -> Bool? {
        state.withLock { $0.cancelled[request] }
    }

    private func pass() async -> Int {
        let request = state.withLock { state in
            defer { state.arrivals += 1 }
            return state.arrivals
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let isOpen = state.withLock { state in
                if state.opened.contains(request) { return true }
                state.waiting[request] = continuation
                return false
            }
            if isOpen { continuation.resume() }
        }
        let isCancelled = Task.isCancelled
        state.withLock { $0.cancelled[request] = isCancelled }
        return request
    }
}
