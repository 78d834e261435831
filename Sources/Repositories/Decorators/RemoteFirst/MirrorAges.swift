import Synchronization

/// When this process last made a local copy agree with the remote: per ID, and for the
/// whole collection. The ages a ``RemoteFirstRepository`` stream reports for local values.
///
/// Only refreshes made by this process are known; per-ID times are kept for at most
/// ``limit`` IDs (past that they are forgotten, and ages fall back to the last whole
/// refresh), so memory stays bounded.
final class MirrorAges<ID: Hashable & Sendable>: Sendable {
    private struct State {
        var byID: [ID: Duration] = [:]
        var whole: Duration?
    }

    private let clock: ElapsedClock
    private let state = Mutex(State())

    static var limit: Int { 10_000 }

    init(clock: ElapsedClock) {
        self.clock = clock
    }

    /// Notes that the copies in `scope` now agree with the remote.
    func refreshed(_ scope: KeyScope<ID>) {
        let now = clock.now()
        state.withLock { state in
            switch scope {
            case .all:
                state.whole = now
                state.byID.removeAll()
            case .keys(let keys):
                guard keys.count <= Self.limit else { return }
                if state.byID.count + keys.count > Self.limit { state.byID.removeAll() }
                for key in keys { state.byID[key] = now }
            }
        }
    }

    /// How long ago the copy under `id` last agreed with the remote, when known.
    func age(of id: ID) -> Duration? {
        let now = clock.now()
        return state.withLock { state in
            let times = [state.byID[id], state.whole].compactMap { $0 }
            return times.max().map { now - $0 }
        }
    }

    /// How long ago the whole local collection last agreed with the remote, when known.
    func ageOfWhole() -> Duration? {
        let now = clock.now()
        return state.withLock { state in state.whole.map { now - $0 } }
    }
}
