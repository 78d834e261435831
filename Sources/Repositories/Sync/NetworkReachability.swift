import Synchronization

/// Whether this device can reach the network, as a signal an automatic sync follows: while
/// the network is down it sends nothing and does not retry on a timer; when the network
/// returns it syncs at once.
///
/// ```swift
/// let notes = api.offlineFirst(
///     local: file, outbox: outbox,
///     automaticSync: AutomaticSync(reachability: PathMonitorReachability()))   // Apple platforms
/// ```
///
/// On Apple platforms ``AutomaticSync``'s default is `PathMonitorReachability` (the
/// Network framework's path monitor); elsewhere there is none, and an app that learns of the
/// network some other way tells a ``ManualReachability``.
public protocol NetworkReachability: Sendable {
    /// Whether the network is reachable now.
    var isReachable: Bool { get }

    /// Whether the network is reachable now, then again each time that changes; ends when
    /// the iterating task is cancelled.
    func reachability() -> AsyncStream<Bool>
}

/// A ``NetworkReachability`` the app (or a test) sets: from its own network monitor, a
/// connectivity library, or a switch in a debug menu.
///
/// ```swift
/// let network = ManualReachability(reachable: false)
/// let notes = api.offlineFirst(
///     local: file, outbox: outbox, automaticSync: AutomaticSync(reachability: network))
/// network.set(reachable: true)   // the pending changes go out now
/// ```
public final class ManualReachability: NetworkReachability {
    private let signal: ReachabilitySignal

    /// A signal that starts as `reachable`.
    public init(reachable: Bool = true) {
        signal = ReachabilitySignal(reachable: reachable)
    }

    /// Whether the network is reachable, as last set.
    public var isReachable: Bool { signal.isReachable }

    /// Sets whether the network is reachable; every listener hears a change.
    public func set(reachable: Bool) {
        signal.set(reachable)
    }

    /// The current reachability, then each change.
    public func reachability() -> AsyncStream<Bool> {
        signal.stream()
    }
}

/// A reachability value and its listeners: each hears the value when it starts listening,
/// then each change.
final class ReachabilitySignal: Sendable {
    private struct State {
        var reachable: Bool
        var listeners: [Int: AsyncStream<Bool>.Continuation] = [:]
        var nextListener = 0
    }

    private let state: Mutex<State>

    init(reachable: Bool) {
        state = Mutex(State(reachable: reachable))
    }

    var isReachable: Bool { state.withLock { $0.reachable } }

    /// Sets the value; listeners hear it when it changed.
    func set(_ reachable: Bool) {
        let listeners = state.withLock { state -> [AsyncStream<Bool>.Continuation] in
            guard state.reachable != reachable else { return [] }
            state.reachable = reachable
            return Array(state.listeners.values)
        }
        for listener in listeners { listener.yield(reachable) }
    }

    /// The value now, then each change, until the listener stops.
    func stream() -> AsyncStream<Bool> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: Bool.self, bufferingPolicy: .bufferingNewest(1))
        state.withLock { state in
            let id = state.nextListener
            state.nextListener += 1
            state.listeners[id] = continuation
            continuation.yield(state.reachable)
            continuation.onTermination = { [weak self] _ in
                self?.state.withLock { _ = $0.listeners.removeValue(forKey: id) }
            }
        }
        return stream
    }
}
