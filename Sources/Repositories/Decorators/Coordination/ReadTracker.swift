import Synchronization

/// Remembers, for each read in progress, whether a write touched its keys since it began.
///
/// A decorator that copies what it read into a second store (a cache fill, a local mirror)
/// asks ``isClean(_:)`` before copying: a read that raced a write may hold the value from
/// before the write, and copying it would put the older value back. Only reads in progress
/// are remembered, so memory stays proportional to concurrency, not to the number of keys.
final class ReadTracker<Key: Hashable & Sendable>: Sendable {
    private struct Reader {
        var scope: KeyScope<Key>
        var dirty = false
    }

    private struct State {
        var nextToken: UInt64 = 0
        var readers: [UInt64: Reader] = [:]
        var byKey: [Key: Set<UInt64>] = [:]
        var readersOfAll: Set<UInt64> = []
    }

    private let state = Mutex(State())

    /// Registers a read of `scope`; pass the token to ``isClean(_:)`` and ``end(_:)``.
    func begin(_ scope: KeyScope<Key>) -> UInt64 {
        state.withLock { state in
            let token = state.nextToken
            state.nextToken += 1
            state.readers[token] = Reader(scope: scope)
            switch scope {
            case .all: state.readersOfAll.insert(token)
            case .keys(let keys): for key in keys { state.byKey[key, default: []].insert(token) }
            }
            return token
        }
    }

    /// Marks every read in progress that overlaps `scope` as raced by a write.
    func noteWrite(_ scope: KeyScope<Key>) {
        state.withLock { state in
            switch scope {
            case .all:
                for token in state.readers.keys { state.readers[token]?.dirty = true }
            case .keys(let keys):
                for token in state.readersOfAll { state.readers[token]?.dirty = true }
                for key in keys {
                    for token in state.byKey[key] ?? [] { state.readers[token]?.dirty = true }
                }
            }
        }
    }

    /// Whether no write overlapping the read happened since it began.
    func isClean(_ token: UInt64) -> Bool {
        state.withLock { $0.readers[token].map { !$0.dirty } ?? false }
    }

    /// Forgets the read.
    func end(_ token: UInt64) {
        state.withLock { state in
            guard let reader = state.readers.removeValue(forKey: token) else { return }
            switch reader.scope {
            case .all: state.readersOfAll.remove(token)
            case .keys(let keys):
                for key in keys {
                    state.byKey[key]?.remove(token)
                    if state.byKey[key]?.isEmpty == true { state.byKey.removeValue(forKey: key) }
                }
            }
        }
    }

    /// Runs `body` as a read of `scope`, passing the token.
    func reading<T>(_ scope: KeyScope<Key>, _ body: (UInt64) async throws -> T) async rethrows -> T {
        let token = begin(scope)
        defer { end(token) }
        return try await body(token)
    }
}
