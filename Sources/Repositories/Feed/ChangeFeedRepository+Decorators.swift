// A decorator over a store with a change feed keeps the feed, so a sync pulling through a
// retried, timed, guarded, instrumented, observed, coalesced, read-only or mapped remote
// still asks only for what changed. Reading the feed is a read of the collection: the
// forwarding decorators wrap it as they wrap `fetchAll()` (retried on a transient failure,
// timed, counted by the breaker, reported as a `fetchAll` event). Swift does not let the
// internal forwarding protocol's extension declare the public witnesses, so each decorator
// states its own, one line over the shared forwarding below.

extension ForwardingRepository where Base: ChangeFeedRepository {
    func forwardChanges(since cursor: SyncCursor?, limit: Int) async throws -> ChangePage<Entity, ID> {
        try await around(.fetchAll) { [base] in try await base.changes(since: cursor, limit: limit) }
    }

    func forwardChanges(since cursor: SyncCursor?, limit: Int, in subset: Query<Entity>) async throws
        -> ChangePage<Entity, ID>
    {
        try await around(.fetchAll) { [base] in
            try await base.changes(since: cursor, limit: limit, in: subset)
        }
    }
}

extension RetryingRepository: ChangeFeedRepository where Base: ChangeFeedRepository {
    /// The base's changes after `cursor`, retried as `fetchAll()` is; `cursorExpired` and
    /// `rejected` are answers, not transient failures, and are never retried.
    public func changes(since cursor: SyncCursor?, limit: Int) async throws -> ChangePage<Entity, ID> {
        try await forwardChanges(since: cursor, limit: limit)
    }

    /// The base's changes after `cursor` for `subset`, as ``changes(since:limit:)``.
    public func changes(since cursor: SyncCursor?, limit: Int, in subset: Query<Entity>) async throws
        -> ChangePage<Entity, ID>
    {
        try await forwardChanges(since: cursor, limit: limit, in: subset)
    }

    /// Whether the base serves a feed.
    public var servesChangeFeed: Bool { base.servesChangeFeed }
}

extension TimeoutRepository: ChangeFeedRepository where Base: ChangeFeedRepository {
    /// The base's changes after `cursor`, within the time limit, as `fetchAll()`.
    public func changes(since cursor: SyncCursor?, limit: Int) async throws -> ChangePage<Entity, ID> {
        try await forwardChanges(since: cursor, limit: limit)
    }

    /// The base's changes after `cursor` for `subset`, as ``changes(since:limit:)``.
    public func changes(since cursor: SyncCursor?, limit: Int, in subset: Query<Entity>) async throws
        -> ChangePage<Entity, ID>
    {
        try await forwardChanges(since: cursor, limit: limit, in: subset)
    }

    /// Whether the base serves a feed.
    public var servesChangeFeed: Bool { base.servesChangeFeed }
}

extension CircuitBreakerRepository: ChangeFeedRepository where Base: ChangeFeedRepository {
    /// The base's changes after `cursor`, through the breaker, as `fetchAll()`; a
    /// `cursorExpired` answer is the source answering, not a failure.
    public func changes(since cursor: SyncCursor?, limit: Int) async throws -> ChangePage<Entity, ID> {
        try await forwardChanges(since: cursor, limit: limit)
    }

    /// The base's changes after `cursor` for `subset`, as ``changes(since:limit:)``.
    public func changes(since cursor: SyncCursor?, limit: Int, in subset: Query<Entity>) async throws
        -> ChangePage<Entity, ID>
    {
        try await forwardChanges(since: cursor, limit: limit, in: subset)
    }

    /// Whether the base serves a feed.
    public var servesChangeFeed: Bool { base.servesChangeFeed }
}

extension InstrumentedRepository: ChangeFeedRepository where Base: ChangeFeedRepository {
    /// The base's changes after `cursor`, reported as a `fetchAll` event.
    public func changes(since cursor: SyncCursor?, limit: Int) async throws -> ChangePage<Entity, ID> {
        try await forwardChanges(since: cursor, limit: limit)
    }

    /// The base's changes after `cursor` for `subset`, as ``changes(since:limit:)``.
    public func changes(since cursor: SyncCursor?, limit: Int, in subset: Query<Entity>) async throws
        -> ChangePage<Entity, ID>
    {
        try await forwardChanges(since: cursor, limit: limit, in: subset)
    }

    /// Whether the base serves a feed.
    public var servesChangeFeed: Bool { base.servesChangeFeed }
}

extension ObservedRepository: ChangeFeedRepository where Base: ChangeFeedRepository {
    /// The base's changes after `cursor`; reading them announces nothing, as any read.
    public func changes(since cursor: SyncCursor?, limit: Int) async throws -> ChangePage<Entity, ID> {
        try await base.changes(since: cursor, limit: limit)
    }

    /// The base's changes after `cursor` for `subset`, as ``changes(since:limit:)``.
    public func changes(since cursor: SyncCursor?, limit: Int, in subset: Query<Entity>) async throws
        -> ChangePage<Entity, ID>
    {
        try await base.changes(since: cursor, limit: limit, in: subset)
    }

    /// Whether the base serves a feed.
    public var servesChangeFeed: Bool { base.servesChangeFeed }
}

extension CoalescingRepository: ChangeFeedRepository where Base: ChangeFeedRepository {
    /// The base's changes after `cursor`; never shared, as queries are not: each reader
    /// pages from its own cursor.
    public func changes(since cursor: SyncCursor?, limit: Int) async throws -> ChangePage<Entity, ID> {
        try await base.changes(since: cursor, limit: limit)
    }

    /// The base's changes after `cursor` for `subset`, as ``changes(since:limit:)``.
    public func changes(since cursor: SyncCursor?, limit: Int, in subset: Query<Entity>) async throws
        -> ChangePage<Entity, ID>
    {
        try await base.changes(since: cursor, limit: limit, in: subset)
    }

    /// Whether the base serves a feed.
    public var servesChangeFeed: Bool { base.servesChangeFeed }
}

extension ReadOnlyRepository: ChangeFeedRepository where Base: ChangeFeedRepository {
    /// The base's changes after `cursor`: reading the feed is a read, so it is allowed.
    public func changes(since cursor: SyncCursor?, limit: Int) async throws -> ChangePage<Entity, ID> {
        try await base.changes(since: cursor, limit: limit)
    }

    /// The base's changes after `cursor` for `subset`, as ``changes(since:limit:)``.
    public func changes(since cursor: SyncCursor?, limit: Int, in subset: Query<Entity>) async throws
        -> ChangePage<Entity, ID>
    {
        try await base.changes(since: cursor, limit: limit, in: subset)
    }

    /// Whether the base serves a feed.
    public var servesChangeFeed: Bool { base.servesChangeFeed }
}

extension MappedRepository: ChangeFeedRepository where Base: ChangeFeedRepository {
    /// The base's changes after `cursor`, each saved record converted; the deleted IDs pass
    /// as they are, since both entity types share them.
    ///
    /// - Throws: ``RepositoryError/Code/decodingFailed`` naming the first record that cannot
    ///   be converted: a page is never answered with a record left out, which would skip
    ///   its change for good once the reader keeps the page's cursor.
    public func changes(since cursor: SyncCursor?, limit: Int) async throws -> ChangePage<Entity, ID> {
        let page = try await base.changes(since: cursor, limit: limit)
        return ChangePage(
            saved: try page.saved.map(domain), deleted: page.deleted, next: page.next, hasMore: page.hasMore)
    }

    // A subset is over the converted entities, which the base cannot select: the default
    // `changes(since:limit:in:)` restricts this feed's pages on the device.

    /// Whether the base serves a feed.
    public var servesChangeFeed: Bool { base.servesChangeFeed }
}
