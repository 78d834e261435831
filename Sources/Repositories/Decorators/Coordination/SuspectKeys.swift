import Synchronization

/// Keys whose copy in a second store (a cache, a local mirror) may be stale because
/// updating or removing it failed.
///
/// A decorator never serves a suspect copy: it reads through to the primary store instead,
/// and clears the mark once the copy has been rewritten or removed. The marks live in
/// memory, so they protect this process; after a restart a durable second store may still
/// hold the stale copy (each decorator documents what bounds it).
final class SuspectKeys<Key: Hashable & Sendable>: Sendable {
    private struct State {
        var keys: Set<Key> = []
        var all = false
    }

    private let state = Mutex(State())

    /// Past this many suspect keys every copy is treated as suspect, which bounds the memory
    /// a persistently failing second store can take.
    static var limit: Int { 10_000 }

    /// Whether any copy is suspect.
    var isEmpty: Bool { state.withLock { !$0.all && $0.keys.isEmpty } }

    /// Whether every copy is suspect.
    var allSuspect: Bool { state.withLock { $0.all } }

    /// Whether the copy under `key` is suspect.
    func contains(_ key: Key) -> Bool {
        state.withLock { $0.all || $0.keys.contains(key) }
    }

    /// Marks the copies in `scope` as suspect.
    func mark(_ scope: KeyScope<Key>) {
        state.withLock { state in
            switch scope {
            case .all: state.all = true
            case .keys(let keys):
                state.keys.formUnion(keys)
                if state.keys.count > Self.limit {
                    state.all = true
                    state.keys.removeAll()
                }
            }
        }
    }

    /// Clears the marks in `scope`: those copies were rewritten or removed. Clearing single
    /// keys leaves an "every copy" mark in place.
    func clear(_ scope: KeyScope<Key>) {
        state.withLock { state in
            switch scope {
            case .all:
                state.all = false
                state.keys.removeAll()
            case .keys(let keys): state.keys.subtract(keys)
            }
        }
    }
}
