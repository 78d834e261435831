import Foundation

/// A repository that answers reads from a cache of ``Cached`` entries while they are
/// fresh, reads the source otherwise and fills the cache, and sends writes to the source
/// and then drops the cached copies.
///
/// ```swift
/// let cache = try await FileRepository<Cached<Fact>>(fileURL: cacheURL)
/// let facts = api.cached(in: cache, timeToLive: .seconds(60 * 60))
/// ```
///
/// ## Reads
///
/// - `fetch(id:)`: a cached entry younger than ``timeToLive`` is returned without touching
///   the source. Otherwise (missing, expired, suspect, or the cache read failed) the source
///   is read, the answer is stored with the time it was read, and returned; when the source
///   has nothing, the expired copy is removed. Concurrent misses for one ID share a single
///   source call.
/// - `fetchAll()` is cached as a whole: the first call reads the source, replaces the
///   cache's content with the answer, and remembers the answer's IDs and time, in memory.
///   Until ``timeToLive`` passes or a write happens, later calls read those entries from
///   the cache, in the source's order. After a restart nothing is remembered, so the first
///   `fetchAll()` reads the source again (single entries keep their ages). Concurrent calls
///   share one source call. If the cache lost an entry (a capacity-bound cache evicted it),
///   the source is read again.
/// - `fetch(ids:)` takes fresh entries from the cache and reads the rest from the source in
///   one call, then fills them.
/// - `fetch(_:)` and `count()` answer from the cached whole collection while it is fresh,
///   and pass to the source otherwise (a query result is not cached).
/// - An entry's age is measured in wall-clock time (see the initializer), so a cache held in
///   a durable store keeps its ages across restarts. An entry stored "in the future" (the
///   system clock was set back) counts as expired.
///
/// ## Writes
///
/// Every write goes to the source, then drops the cached copies it touched (`deleteAll()`
/// empties the cache) and forgets the cached whole collection, before returning. Writes
/// that share an ID run one after the other.
///
/// ## Races
///
/// A read that raced a write never puts the older value back: a fill is applied only if no
/// write to its keys was noted since the read began, and fills and invalidations of one key
/// are serialized. A caller that starts after a write returned never joins a read that
/// began before it.
///
/// ## Partial failures
///
/// | what fails | what happens |
/// |---|---|
/// | the source, on a read | its error is thrown; the cache is unchanged |
/// | the source, on a write | its error is thrown, and the copies it touched are dropped anyway, because a write that threw may have landed |
/// | the cache, on a read | reported as ``TierFailure/Stage/read``; the source answers |
/// | the cache, on a fill | reported as ``TierFailure/Stage/fill``; the source's answer is returned; the key is suspect until a later fill succeeds |
/// | the cache, on a write (dropping the copies) | a ``RepositoryError`` with code ``RepositoryError/Code/partiallyApplied`` is thrown: the source has the write (nothing is lost), and this process never serves the stale copy: reads of it go to the source until a fill or invalidation rewrites it. After a restart, a durable cache may serve it until it expires, so write again or call ``invalidate(ids:)`` |
/// | the cache, on ``invalidate(ids:)`` | reported as ``TierFailure/Stage/invalidate``; this process never serves the stale copy |
///
/// Nothing is cached for an ID the source does not have: each `fetch(id:)` of it reads the
/// source.
public struct CacheAsideRepository<Source: Repository, Cache: Repository>: Repository
where Cache.Entity == Cached<Source.Entity>, Cache.ID == Source.ID {
    /// The source's entity.
    public typealias Entity = Source.Entity
    /// The source's ID.
    public typealias ID = Source.ID

    /// The repository that holds the data.
    public let source: Source
    /// The repository that holds the cached entries.
    public let cache: Cache
    /// How long an entry, or the whole collection, is served from the cache.
    public let timeToLive: Duration
    // The hit path of `fetch(id:)` is inlinable, so these are visible to inlined code.
    /// Seconds on the clock since the initializer ran.
    @usableFromInline let elapsedSeconds: @Sendable () -> Double
    /// `startDate`, as seconds since the reference date.
    @usableFromInline let startInterval: TimeInterval
    /// ``timeToLive`` in seconds, converted once rather than on every hit.
    @usableFromInline let timeToLiveInterval: TimeInterval
    @usableFromInline let tiers: _TierCoordinator<ID, Entity>

    /// Puts `cache` in front of `source`.
    ///
    /// Entries are stamped with a wall-clock `Date`: `startDate` plus the time elapsed on
    /// `clock` since this initializer ran. In an app, keep the defaults (the system's
    /// current date and a `ContinuousClock`): ages then run in real time, even while the
    /// device sleeps, and are not disturbed by changes to the system clock while the process
    /// runs. In tests, pass a `ManualClock` and a fixed date; a test of a restart makes a
    /// second repository over the same cache with a later `startDate`.
    ///
    /// - Parameters:
    ///   - source: the repository that holds the data.
    ///   - cache: holds the cached entries; durable to keep them across restarts.
    ///   - timeToLive: how long an entry is served from the cache; zero caches nothing.
    ///   - clock: measures time since `startDate`.
    ///   - startDate: the wall-clock date at which `clock` is read as now.
    ///   - onTierFailure: told about cache failures that were worked around.
    public init(
        source: Source, cache: Cache, timeToLive: Duration,
        clock: some Clock<Duration> = ContinuousClock(), startDate: Date = Date(),
        onTierFailure: @escaping @Sendable (TierFailure) -> Void = { _ in }
    ) {
        self.source = source
        self.cache = cache
        self.timeToLive = timeToLive
        self.timeToLiveInterval = timeToLive.timeInterval
        self.elapsedSeconds = ElapsedClock(clock).seconds
        self.startInterval = startDate.timeIntervalSinceReferenceDate
        self.tiers = _TierCoordinator(role: .cache, primary: "source", second: "cache", report: onTierFailure)
    }

    /// How many callers are waiting on a shared source read right now: for metrics, and for
    /// tests that must know every caller has joined before letting the read finish.
    package var waitingCallerCount: Int { tiers.waitingCallerCount }

    /// Now, in wall-clock time: `startDate` plus the time elapsed on the clock.
    @inlinable
    func now() -> Date {
        Date(timeIntervalSinceReferenceDate: startInterval + elapsedSeconds())
    }

    @inlinable
    func isFresh(_ storedAt: Date) -> Bool {
        let age = now().timeIntervalSince(storedAt)
        return age >= 0 && age < timeToLiveInterval
    }

    // MARK: Reading

    /// Returns the cached entity while fresh; otherwise reads the source and fills the cache.
    ///
    /// - Throws: the source's error when the source had to be read and failed.
    @inlinable @inline(__always)
    public func fetch(id: ID) async throws -> Entity? {
        // A fresh hit is one atomic load (no key is suspect), one read of the cache and one
        // read of the clock; no lock of this decorator's own. It is inlinable so that it is
        // specialized in the caller's module for the concrete cache and entity: unspecialized,
        // the cache's lookup, the entry's copy and the `Optional`s around it go through
        // run-time generic metadata and value witnesses, which cost more than ten times the
        // lookup itself. It is also always inlined: where the optimizer left it a call, the
        // async call's frame and executor check added 20-30 ns to a 70 ns hit (figure 2 of
        // the benchmark). Only this hit path is inlined; a miss calls `miss(_:mayHoldCopy:)`.
        // The cache is called directly, not through `tiers.read` and a closure, for the same
        // reason.
        guard !tiers.isSuspect(id) else { return try await miss(id, mayHoldCopy: true) }
        let entry: Cached<Entity>?
        do {
            entry = try await cache.fetch(id: id)
        } catch {
            // The cache read failed: reported, then the source answers.
            try tiers.readFailed(.fetch, error)
            return try await miss(id, mayHoldCopy: true)
        }
        guard let entry else { return try await miss(id, mayHoldCopy: false) }
        if isFresh(entry.storedAt) { return entry.value }
        // Expired: the source answers, and the copy goes if the source has nothing.
        return try await miss(id, mayHoldCopy: true)
    }

    /// Reads the source for `id`, sharing the read with concurrent misses, and fills the cache;
    /// `mayHoldCopy` says whether the cache may hold a copy to remove when the source has
    /// nothing.
    @usableFromInline
    func miss(_ id: ID, mayHoldCopy: Bool) async throws -> Entity? {
        try await tiers.sharedLoad(id) { [self] in try await load(id, removingCopy: mayHoldCopy) }
    }

    private func load(_ id: ID, removingCopy: Bool) async throws -> Entity? {
        let (value, _) = try await tiers.load(
            .key(id), read: { (try await source.fetch(id: id), now()) },
            fillScope: { value, _ in value != nil || removingCopy ? .key(id) : nil },
            fill: { answer, fill in
                let (value, storedAt) = answer
                await fill.copy(.key(id), .fetch) {
                    if let value {
                        try await cache.save(Cached(value, storedAt: storedAt))
                    } else {
                        try await cache.delete(id: id)
                    }
                }
            })
        return value
    }

    /// Returns the cached whole collection while fresh; otherwise reads the source and
    /// replaces the cache's content with its answer.
    ///
    /// - Throws: the source's error when the source had to be read and failed.
    public func fetchAll() async throws -> [Entity] {
        if let cached = try await cachedWholeSet(.fetchAll) { return cached }
        return try await tiers.sharedLoadAll { [self] in try await loadAll() }
    }

    private func cachedWholeSet(_ operation: RepositoryOperation) async throws -> [Entity]? {
        try await tiers.readWholeSet(
            operation, isUsable: { $0.storedAt.map(isFresh) ?? false }, { try await cache.fetch(ids: $0) }
        )?.map(\.value)
    }

    private func loadAll() async throws -> [Entity] {
        let (values, _) = try await tiers.load(
            .all, read: { (try await source.fetchAll(), now()) },
            fill: { answer, fill in
                let (values, storedAt) = answer
                let entries = values.map { Cached($0, storedAt: storedAt) }
                guard await fill.replaceAll(in: cache, with: entries, .fetchAll) else { return }
                fill.recordWholeSet(.init(ids: values.map(\.id), storedAt: storedAt))
            })
        return values
    }

    /// Returns fresh cached entities and reads the others from the source in one call,
    /// filling the cache with them; in the order of `ids`, skipping absent and repeated IDs.
    ///
    /// - Throws: the source's error when the source had to be read and failed.
    public func fetch(ids: [ID]) async throws -> [Entity] {
        var seen = Set<ID>()
        let unique = ids.filter { seen.insert($0).inserted }
        var found: [ID: Entity] = [:]
        let candidates = tiers.trusted(unique)
        var copies = Set(unique).subtracting(candidates)
        if let entries = try await tiers.read(.fetchIDs, { try await cache.fetch(ids: candidates) }) {
            for entry in entries {
                if isFresh(entry.storedAt) { found[entry.id] = entry.value } else { copies.insert(entry.id) }
            }
        } else {
            copies.formUnion(candidates)
        }
        let missing = unique.filter { found[$0] == nil }
        if !missing.isEmpty {
            for entity in try await load(missing, removingCopies: copies) { found[entity.id] = entity }
        }
        return unique.compactMap { found[$0] }
    }

    private func load(_ ids: [ID], removingCopies copies: Set<ID>) async throws -> [Entity] {
        let scope = KeyScope<ID>.keys(Set(ids))
        let (values, _) = try await tiers.load(
            scope, read: { (try await source.fetch(ids: ids), now()) },
            fill: { answer, fill in
                let (values, storedAt) = answer
                let gone = copies.subtracting(values.map(\.id))
                await fill.copy(scope, .fetchIDs) {
                    if !values.isEmpty {
                        try await cache.save(contentsOf: values.map { Cached($0, storedAt: storedAt) })
                    }
                    if !gone.isEmpty { try await cache.delete(ids: Array(gone)) }
                }
            })
        return values
    }

    /// Applies `query` to the cached whole collection while it is fresh; otherwise passes it
    /// to the source (the result is not cached).
    ///
    /// - Throws: ``RepositoryError/Code/rejected`` for a negative offset or limit; the
    ///   source's error when it was asked and failed.
    public func fetch(_ query: Query<Entity>) async throws -> [Entity] {
        try query.validate()
        if let cached = try await cachedWholeSet(.fetchQuery) { return try query.apply(to: cached) }
        return try await source.fetch(query)
    }

    /// Counts the cached whole collection while it is fresh; otherwise asks the source.
    public func count() async throws -> Int {
        if let wholeSet = tiers.wholeSet, let storedAt = wholeSet.storedAt, isFresh(storedAt) {
            return wholeSet.ids.count
        }
        return try await source.count()
    }

    // MARK: Writing

    /// Writes to the source, then drops the cached copies in `scope` (even when the source
    /// threw: the write may have landed).
    private func write(
        _ scope: KeyScope<ID>, _ operation: RepositoryOperation, _ primary: () async throws -> Void
    ) async throws {
        try await tiers.write(
            scope, operation, afterPrimaryFailure: .applyAnyway, primary: primary,
            second: { try await drop(scope) })
    }

    private func drop(_ scope: KeyScope<ID>) async throws {
        switch scope {
        case .all: try await cache.deleteAll()
        case .keys(let keys):
            if keys.count == 1, let key = keys.first {
                try await cache.delete(id: key)
            } else {
                try await cache.delete(ids: Array(keys))
            }
        }
    }

    /// Saves to the source, then drops the cached copy.
    ///
    /// - Throws: the source's error (the cached copy is dropped anyway);
    ///   ``RepositoryError/Code/partiallyApplied`` when the source saved it but the cached copy
    ///   could not be dropped.
    public func save(_ entity: Entity) async throws {
        try await write(.key(entity.id), .save) { try await source.save(entity) }
    }

    /// Saves the batch to the source (all or nothing, as the source's batch is), then drops
    /// the cached copies.
    ///
    /// - Throws: the source's error (the cached copies are dropped anyway);
    ///   ``RepositoryError/Code/partiallyApplied`` when the source saved it but a cached copy
    ///   could not be dropped.
    public func save(contentsOf entities: [Entity]) async throws {
        try await write(.keys(Set(entities.map(\.id))), .saveContentsOf) {
            try await source.save(contentsOf: entities)
        }
    }

    /// Deletes from the source, then drops the cached copy.
    ///
    /// - Throws: the source's error (the cached copy is dropped anyway);
    ///   ``RepositoryError/Code/partiallyApplied`` when the cached copy could not be dropped.
    public func delete(id: ID) async throws {
        try await write(.key(id), .delete) { try await source.delete(id: id) }
    }

    /// Deletes from the source, then drops the cached copies.
    ///
    /// - Throws: the source's error (the cached copies are dropped anyway);
    ///   ``RepositoryError/Code/partiallyApplied`` when a cached copy could not be dropped.
    public func delete(ids: [ID]) async throws {
        try await write(.keys(Set(ids)), .deleteIDs) { try await source.delete(ids: ids) }
    }

    /// Deletes everything from the source, then empties the cache.
    ///
    /// - Throws: the source's error (the cache is emptied anyway);
    ///   ``RepositoryError/Code/partiallyApplied`` when the cache could not be emptied.
    public func deleteAll() async throws {
        try await write(.all, .deleteAll) { try await source.deleteAll() }
    }
}

extension CacheAsideRepository: InvalidatableRepository {
    /// Drops the cached copies of `ids` and forgets the cached whole collection; when the
    /// source keeps copies too (it is an ``InvalidatableRepository``), it drops them first.
    public func invalidate(ids: [ID]) async {
        if let source = source as? any InvalidatableRepository<Entity, ID> {
            await source.invalidate(ids: ids)
        }
        let scope = KeyScope<ID>.keys(Set(ids))
        await tiers.invalidate(scope, nil) { try await drop(scope) }
    }

    /// Empties the cache and forgets the cached whole collection; when the source keeps
    /// copies too, it drops them first.
    public func invalidateAll() async {
        if let source = source as? any InvalidatableRepository<Entity, ID> { await source.invalidateAll() }
        await tiers.invalidate(.all, nil) { try await drop(.all) }
    }
}
