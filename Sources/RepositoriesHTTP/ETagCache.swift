import Foundation
import Synchronization

/// The entity tags a repository last received, by URL, with the body of each `GET` that
/// sent one, so a `304 Not Modified` can be answered from it.
///
/// A `GET` that returned a tag keeps the tag and the body; a write that returned one keeps
/// only the tag (for `If-Match`, never for `If-None-Match`, since the write's body is not
/// the resource's). Past ``capacity`` entries the least recently used is dropped.
final class ETagCache: Sendable {
    /// What is kept for one URL.
    struct Entry: Sendable {
        /// The entity tag, quotes and weakness prefix included, as the server sent it.
        var tag: String
        /// The body received with the tag, when it came with a `GET`.
        var body: Data?
        var lastUse: UInt64
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var clock: UInt64 = 0
    }

    /// How many URLs are kept at most.
    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    /// The tag and body last received from a `GET` of `url`.
    func cachedResponse(for url: URL) -> (tag: String, body: Data)? {
        state.withLock { state in
            guard var entry = state.entries[url.absoluteString], let body = entry.body else { return nil }
            state.clock += 1
            entry.lastUse = state.clock
            state.entries[url.absoluteString] = entry
            return (entry.tag, body)
        }
    }

    /// The tag last received for `url`, from a read or a write.
    func tag(for url: URL) -> String? {
        state.withLock { $0.entries[url.absoluteString]?.tag }
    }

    /// Keeps `tag` (and the body of a `GET`) for `url`.
    func remember(_ tag: String, body: Data?, for url: URL) {
        guard capacity > 0 else { return }
        state.withLock { state in
            state.clock += 1
            state.entries[url.absoluteString] = Entry(tag: tag, body: body, lastUse: state.clock)
            if state.entries.count > capacity,
                let oldest = state.entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key
            {
                state.entries[oldest] = nil
            }
        }
    }

    /// Forgets what was kept for `url`.
    func forget(_ url: URL) {
        state.withLock { _ = $0.entries.removeValue(forKey: url.absoluteString) }
    }

    /// Forgets everything.
    func forgetAll() {
        state.withLock { $0.entries.removeAll() }
    }
}
