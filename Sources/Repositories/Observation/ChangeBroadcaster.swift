import Synchronization

/// Hands every element sent to each subscriber's stream; a subscriber whose stream ends
/// is forgotten.
final class ChangeBroadcaster<Element: Sendable>: Sendable {
    private struct State {
        var next: UInt64 = 0
        var subscribers: [UInt64: AsyncStream<Element>.Continuation] = [:]
    }

    private let state = Mutex(State())

    /// How many streams are subscribed.
    var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    /// A stream of every element sent from now on; it keeps `owner` alive until it ends.
    func subscribe(
        bufferingPolicy: AsyncStream<Element>.Continuation.BufferingPolicy = .unbounded,
        keepingAlive owner: (any Sendable & AnyObject)? = nil
    ) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: Element.self, bufferingPolicy: bufferingPolicy)
        let token = state.withLock { state in
            defer { state.next += 1 }
            state.subscribers[state.next] = continuation
            return state.next
        }
        continuation.onTermination = { [weak self] _ in
            withExtendedLifetime(owner) {
                self?.state.withLock { _ = $0.subscribers.removeValue(forKey: token) }
            }
        }
        return stream
    }

    /// Sends `element` to every subscriber.
    func send(_ element: Element) {
        let subscribers = state.withLock { Array($0.subscribers.values) }
        for subscriber in subscribers { subscriber.yield(element) }
    }
}
