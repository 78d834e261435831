import Synchronization

/// Keys whose copy in a second store (a cache, a local mirror) may be stale because
/// updating or removing it failed.
///
/// A decorator never serves a suspect copy: it reads through to the primary store instead,
/// and clears the mark once the copy has been rewritten or removed. The marks live in
/// memory, so they protect this process; after a restart a durable second store may still
/// hold the stale copy (each decorator documents what bounds it).
///
/// Every read of a cache hit asks ``contains(_:)``, so the usual answer (nothing is suspect)
/// comes from one atomic load, without the lock; the atomic mirrors, under the lock, whether
/// any mark is set. A mark made before a write returned is seen by every read that starts
/// after it (release store, acquire load). Inlinable, with the decorators' hit paths, so
/// that callers in other modules get it specialized; a noncopyable struct stored in its
/// ``_TierCoordinator``, rather than a class of its own, so that the hit path does not retain
/// and release it.
@usableFromInline
struct _SuspectKeys<Key: Hashable & Sendable>: ~Copyable, Sendable {
    // Internal, not private: a noncopyable struct stored inline in another file's class
    // needs its fields' metadata there (a private type's is not linkable from that file).
    struct State {
        var keys: Set<Key> = []
        var all = false
    }

    private let state = Mutex(State())
    /// Whether any mark is set; written only while holding `state`'s lock.
    @usableFromInline let anyMarked = Atomic<Bool>(false)

    @usableFromInline init() {}

    /// Past this many suspect keys every copy is treated as suspect, which bounds the memory
    /// a persistently failing second store can take.
    static var limit: Int { 10_000 }

    /// Whether any copy is suspect.
    var isEmpty: Bool { !anyMarked.load(ordering: .acquiring) }

    /// Whether every copy is suspect.
    var allSuspect: Bool {
        guard anyMarked.load(ordering: .acquiring) else { return false }
        return state.withLock { $0.all }
    }

    /// Whether the copy under `key` is suspect.
    @inlinable
    func contains(_ key: Key) -> Bool {
        guard anyMarked.load(ordering: .acquiring) else { return false }
        return markedContains(key)
    }

    @usableFromInline
    func markedContains(_ key: Key) -> Bool {
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
            anyMarked.store(state.all || !state.keys.isEmpty, ordering: .releasing)
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
            anyMarked.store(state.all || !state.keys.isEmpty, ordering: .releasing)
        }
    }
}
