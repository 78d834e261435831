import Synchronization

/// The examples' network: a switch that takes a remote offline and back, and a count of
/// the requests that reached it.
///
/// Shared by reference: the example flips the switch, its ``SwitchedRepository`` sees it.
public final class NetworkSwitch: Sendable {
    private struct State {
        var isOnline: Bool
        var requests = 0
        var refused = 0
    }
    private let state: Mutex<State>

    /// A switch, online unless `online` is `false`.
    public init(online: Bool = true) {
        state = Mutex(State(isOnline: online))
    }

    /// Whether requests currently reach the remote.
    public var isOnline: Bool { state.withLock { $0.isOnline } }
    /// Requests that reached the remote so far.
    public var requests: Int { state.withLock { $0.requests } }
    /// Requests refused because the switch was off.
    public var refused: Int { state.withLock { $0.refused } }

    /// Takes the remote offline: every request fails with `unavailable` until ``goOnline()``.
    public func goOffline() { state.withLock { $0.isOnline = false } }
    /// Brings the remote back.
    public func goOnline() { state.withLock { $0.isOnline = true } }

    /// Counts one request; `false` when the switch is off.
    func admit() -> Bool {
        state.withLock { state in
            if state.isOnline { state.requests += 1 } else { state.refused += 1 }
            return state.isOnline
        }
    }
}
