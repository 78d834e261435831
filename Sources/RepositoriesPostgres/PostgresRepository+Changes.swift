import Foundation
import Repositories

extension PostgresRepository {
    /// The IDs other connections save or delete in this repository's table, as they commit:
    /// an `AsyncSequence` fed by PostgreSQL's LISTEN/NOTIFY on ``channel``.
    ///
    /// ```swift
    /// for await change in notes.changes() {
    ///     switch change {
    ///     case .changed(let ids): print("changed elsewhere:", ids)
    ///     case .everything(let reason): print("anything may have changed:", reason)
    ///     }
    /// }
    /// ```
    ///
    /// ## What it promises
    ///
    /// - It begins with ``PostgresChange/everything(_:)`` ``PostgresChangeReason/startedListening``
    ///   once its connection listens (at once, when another sequence of this repository
    ///   already listens). From then on, every write another connection commits is reported,
    ///   after its commit, in commit order: as ``PostgresChange/changed(_:)`` with its IDs, or
    ///   as ``PostgresChangeReason/manyEntities`` when the IDs would not fit in a notification
    ///   (PostgreSQL's 8,000-byte payload) and for `deleteAll()`.
    /// - When the listening connection is lost, it says ``PostgresChangeReason/connectionLost``,
    ///   reconnects (retrying with a pause of up to two seconds), then says
    ///   ``PostgresChangeReason/startedListening`` again: notifications sent meanwhile are lost,
    ///   so a consumer must take both as "anything may have changed".
    /// - This repository's own writes are left out (they come from its own connections, told
    ///   apart by their backend process IDs): the repository's callers know what they wrote,
    ///   and ``CacheAsideRepository`` already drops its copies of them. Another
    ///   `PostgresRepository` over the same table, in this process or another, is "another
    ///   connection".
    /// - Writes made without this repository (`psql`, another program) notify nothing unless
    ///   they `NOTIFY` the channel themselves.
    ///
    /// The sequence buffers without limit, and ends when the repository is closed or released,
    /// or when the consuming task is cancelled. All sequences of one repository share one
    /// connection, opened with the first.
    public func changes() -> AsyncStream<PostgresChange<ID>> {
        let (stream, continuation) = AsyncStream.makeStream(of: PostgresChange<ID>.self)
        let token = listener.subscribe(
            deliver: { notice in continuation.yield(Self.change(notice)) }, finish: { continuation.finish() })
        if let token {
            let listener = self.listener
            continuation.onTermination = { _ in listener.unsubscribe(token) }
        }
        return stream
    }

    private static func change(_ notice: PostgresNotice) -> PostgresChange<ID> {
        switch notice {
        case .everything(let reason): return .everything(reason)
        case .keys(let keys):
            var ids: [ID] = []
            ids.reserveCapacity(keys.count)
            for key in keys {
                guard let id = key.id(as: ID.self) else { return .everything(.unreadableNotification) }
                ids.append(id)
            }
            return .changed(ids)
        }
    }

    /// This repository behind a cache that drops what other connections change: a
    /// ``CacheAsideRepository`` whose copies are invalidated by ``changes()``.
    ///
    /// ```swift
    /// let notes = try await PostgresRepository<Note>(connectionString: url)
    /// let cached = notes.cachedCoherently(in: InMemoryRepository<Cached<Note>>(), timeToLive: .seconds(300))
    /// ```
    ///
    /// Each ``PostgresChange/changed(_:)`` calls `invalidate(ids:)`, and each
    /// ``PostgresChange/everything(_:)`` calls `invalidateAll()`, then `onChange` is told, in
    /// the order the changes arrive. So:
    ///
    /// - once another instance's write has committed and its notification has been handled
    ///   here (`onChange` was called with it), the next read of those IDs here reads
    ///   PostgreSQL; a read that began before cannot put the older value back (see
    ///   ``CacheAsideRepository``);
    /// - this instance's own writes drop their copies as any ``CacheAsideRepository`` write does;
    /// - while the listening connection is down, cached entries may be served stale until
    ///   `timeToLive` passes; it drops everything when it is lost and again once it listens
    ///   again.
    ///
    /// Nothing is invalidated before the feed listens, which the first `invalidateAll()` marks;
    /// until then, what the cache holds was read at most a moment before.
    ///
    /// The invalidating task runs until the repository is closed with ``close()``, which ends
    /// its feed; it keeps the repository alive until then.
    ///
    /// - Parameters:
    ///   - cache: holds the cached entries, usually an `InMemoryRepository<Cached<Entity>>`.
    ///   - timeToLive: how long an entry is served from the cache.
    ///   - onTierFailure: told about cache failures that were worked around.
    ///   - onChange: told about each change after the cache dropped its copies.
    public func cachedCoherently<Cache: Repository>(
        in cache: Cache, timeToLive: Duration,
        onTierFailure: @escaping @Sendable (TierFailure) -> Void = { _ in },
        onChange: @escaping @Sendable (PostgresChange<ID>) -> Void = { _ in }
    ) -> CacheAsideRepository<PostgresRepository, Cache>
    where Cache.Entity == Cached<Entity>, Cache.ID == ID {
        let cached = self.cached(in: cache, timeToLive: timeToLive, onTierFailure: onTierFailure)
        let changes = changes()
        Task {
            for await change in changes {
                switch change {
                case .changed(let ids): await cached.invalidate(ids: ids)
                case .everything: await cached.invalidateAll()
                }
                onChange(change)
            }
        }
        return cached
    }
}
