/// A repository whose writes reach the source and then a cache before returning, and whose
/// reads are answered by the cache, filled from the source on a miss.
///
/// ```swift
/// let todos = file.writeThrough(to: InMemoryRepository<Todo>())
/// ```
///
/// Entries never expire: the cache is kept equal to the source by the writes that pass
/// through this repository. Use ``CacheAsideRepository`` instead when the source also
/// changes elsewhere.
///
/// ## Reads
///
/// - `fetch(id:)` returns the cached entity; on a miss it reads the source, fills the cache
///   and returns. Concurrent misses for one ID share a single source call.
/// - `fetchAll()` is cached as a whole: the first call reads the source, makes the cache
///   hold exactly the answer (writing only what changed, when the entity is `Equatable`)
///   and remembers its IDs in memory; later calls read those entries from the cache, in
///   the source's order, until a write (or a restart) makes it read the source again.
/// - `fetch(ids:)` takes what the cache has and reads the rest from the source in one call.
/// - `fetch(_:)` and `count()` answer from the cached whole collection when there is one,
///   and pass to the source otherwise.
///
/// A read that raced a write never puts the older value back (see ``CacheAsideRepository``).
///
/// ## Writes
///
/// A write goes to the source, then to the cache, before it returns. Writes that share an
/// ID run one after the other, so when two saves of one entity overlap, the cache ends with
/// the one the source holds, whatever order the source's answers come back in.
///
/// ## Partial failures
///
/// | what fails | what happens |
/// |---|---|
/// | the source, on a write | its error is thrown and the cache is left as it was; since the write may still have landed (a lost response), this process reads the entities it touched from the source until they are rewritten |
/// | the cache, on a write | the cache's copy is removed and a ``RepositoryError`` with code ``RepositoryError/Code/partiallyApplied`` is thrown: the source has the write (nothing is lost), the cache does not; the next read fills the cache |
/// | the cache, on a write, and removing its copy too | the same code, saying the cache still holds the old copy; this process reads those entities from the source until they are rewritten, but after a restart a durable cache may serve the old copy: write again or call ``invalidate(ids:)`` |
/// | the cache, on a read | reported as ``TierFailure/Stage/read``; the source answers |
/// | the cache, on a fill | reported as ``TierFailure/Stage/fill``; the source's answer is returned, and this process stops serving the copies it touched until they are rewritten |
/// | the source, on a read | its error is thrown; the cache is unchanged |
///
/// The cache is a copy this process may drop or rewrite at will, so it must never be a
/// system of record such as a web API: given a ``SystemOfRecord`` as the cache, the
/// initializer stops the program with a message that says what to write instead.
public struct WriteThroughRepository<Source: Repository, Cache: Repository>: Repository
where Cache.Entity == Source.Entity, Cache.ID == Source.ID {
    /// The source's entity.
    public typealias Entity = Source.Entity
    /// The source's ID.
    public typealias ID = Source.ID

    /// The repository that holds the data.
    public let source: Source
    /// The repository that holds copies of it.
    public let cache: Cache
    private let tiers: _TierCoordinator<ID, Entity>

    /// Puts `cache` in front of `source`; `onTierFailure` is told about cache failures that
    /// were worked around.
    public init(
        source: Source, cache: Cache, onTierFailure: @escaping @Sendable (TierFailure) -> Void = { _ in }
    ) {
        requireCopy(Cache.self, as: "cache", of: "WriteThroughRepository")
        self.source = source
        self.cache = cache
        self.tiers = _TierCoordinator(role: .cache, primary: "source", second: "cache", report: onTierFailure)
    }

    /// How many callers are waiting on a shared source read right now.
    package var waitingCallerCount: Int { tiers.waitingCallerCount }

    // MARK: Reading

    /// Returns the cached entity; on a miss reads the source and fills the cache.
    ///
    /// - Throws: the source's error when the source had to be read and failed.
    public func fetch(id: ID) async throws -> Entity? {
        let suspect = tiers.isSuspect(id)
        if !suspect, let hit = try await tiers.read(.fetch, { try await cache.fetch(id: id) }) ?? nil {
            return hit
        }
        return try await tiers.sharedLoad(id) { [self] in try await load(id, removingCopy: suspect) }
    }

    private func load(_ id: ID, removingCopy: Bool) async throws -> Entity? {
        try await tiers.load(
            .key(id), read: { try await source.fetch(id: id) },
            fillScope: { value in value != nil || removingCopy ? .key(id) : nil },
            fill: { value, fill in
                await fill.copy(.key(id), .fetch) {
                    if let value { try await cache.save(value) } else { try await cache.delete(id: id) }
                }
            })
    }

    /// Returns the cached whole collection when there is one; otherwise reads the source and
    /// replaces the cache's content with its answer.
    ///
    /// - Throws: the source's error when the source had to be read and failed.
    public func fetchAll() async throws -> [Entity] {
        if let cached = try await tiers.readWholeSet(.fetchAll, { try await cache.fetch(ids: $0) }) {
            return cached
        }
        return try await tiers.sharedLoadAll { [self] in try await loadAll() }
    }

    private func loadAll() async throws -> [Entity] {
        try await tiers.load(
            .all, read: { try await source.fetchAll() },
            fill: { values, fill in
                guard await fill.replaceAll(in: cache, with: values, .fetchAll) else { return }
                fill.recordWholeSet(.init(ids: values.map(\.id), storedAt: nil))
            })
    }

    /// Returns what the cache has and reads the rest from the source in one call, filling
    /// the cache; in the order of `ids`, skipping absent and repeated IDs.
    ///
    /// - Throws: the source's error when the source had to be read and failed.
    public func fetch(ids: [ID]) async throws -> [Entity] {
        var seen = Set<ID>()
        let unique = ids.filter { seen.insert($0).inserted }
        let candidates = tiers.trusted(unique)
        var found: [ID: Entity] = [:]
        var unknown = Set(unique).subtracting(candidates)
        if let entities = try await tiers.read(.fetchIDs, { try await cache.fetch(ids: candidates) }) {
            for entity in entities { found[entity.id] = entity }
        } else {
            unknown.formUnion(candidates)
        }
        let missing = unique.filter { found[$0] == nil }
        if !missing.isEmpty {
            let loaded = try await tiers.load(
                .keys(Set(missing)), read: { try await source.fetch(ids: missing) },
                fill: { values, fill in
                    let gone = unknown.subtracting(values.map(\.id))
                    await fill.copy(.keys(Set(missing)), .fetchIDs) {
                        if !values.isEmpty { try await cache.save(contentsOf: values) }
                        if !gone.isEmpty { try await cache.delete(ids: Array(gone)) }
                    }
                })
            for entity in loaded { found[entity.id] = entity }
        }
        return unique.compactMap { found[$0] }
    }

    /// Applies `query` to the cached whole collection when there is one; otherwise passes it
    /// to the source.
    ///
    /// - Throws: ``RepositoryError/Code/rejected`` for a negative offset or limit; the
    ///   source's error when it was asked and failed.
    public func fetch(_ query: Query<Entity>) async throws -> [Entity] {
        try query.validate()
        if let cached = try await tiers.readWholeSet(.fetchQuery, { try await cache.fetch(ids: $0) }) {
            return try query.apply(to: cached)
        }
        return try await source.fetch(query)
    }

    /// Counts the cached whole collection when there is one; otherwise asks the source.
    public func count() async throws -> Int {
        if let wholeSet = tiers.wholeSet { return wholeSet.ids.count }
        return try await source.count()
    }

    // MARK: Writing

    /// Saves to the source, then to the cache.
    ///
    /// - Throws: the source's error (the cache is left as it was);
    ///   ``RepositoryError/Code/partiallyApplied`` when the source saved it but the cache could
    ///   not take it (see the type's table).
    public func save(_ entity: Entity) async throws {
        try await tiers.write(
            .key(entity.id), .save, afterPrimaryFailure: .distrust,
            primary: { try await source.save(entity) },
            second: { try await cache.save(entity) },
            removal: { try await cache.delete(id: entity.id) })
    }

    /// Saves the batch to the source, then to the cache, each all or nothing.
    ///
    /// - Throws: the source's error (the cache is left as it was);
    ///   ``RepositoryError/Code/partiallyApplied`` when the source saved it but the cache could
    ///   not take it.
    public func save(contentsOf entities: [Entity]) async throws {
        let ids = entities.map(\.id)
        try await tiers.write(
            .keys(Set(ids)), .saveContentsOf, afterPrimaryFailure: .distrust,
            primary: { try await source.save(contentsOf: entities) },
            second: { try await cache.save(contentsOf: entities) },
            removal: { try await cache.delete(ids: ids) })
    }

    /// Deletes from the source, then from the cache.
    ///
    /// - Throws: the source's error (the cache is left as it was);
    ///   ``RepositoryError/Code/partiallyApplied`` when the source deleted it but the cache
    ///   kept its copy.
    public func delete(id: ID) async throws {
        try await tiers.write(
            .key(id), .delete, afterPrimaryFailure: .distrust,
            primary: { try await source.delete(id: id) },
            second: { try await cache.delete(id: id) })
    }

    /// Deletes from the source, then from the cache.
    ///
    /// - Throws: the source's error (the cache is left as it was);
    ///   ``RepositoryError/Code/partiallyApplied`` when the source deleted them but the cache
    ///   kept copies.
    public func delete(ids: [ID]) async throws {
        try await tiers.write(
            .keys(Set(ids)), .deleteIDs, afterPrimaryFailure: .distrust,
            primary: { try await source.delete(ids: ids) },
            second: { try await cache.delete(ids: ids) })
    }

    /// Deletes everything from the source, then from the cache.
    ///
    /// - Throws: the source's error (the cache is left as it was);
    ///   ``RepositoryError/Code/partiallyApplied`` when the source was emptied but the cache
    ///   could not be.
    public func deleteAll() async throws {
        try await tiers.write(
            .all, .deleteAll, afterPrimaryFailure: .distrust,
            primary: { try await source.deleteAll() },
            second: { try await cache.deleteAll() })
    }
}

extension WriteThroughRepository: InvalidatableRepository {
    /// Drops the cached copies of `ids`; the next read of them fills the cache again. When
    /// the source keeps copies too (it is an ``InvalidatableRepository``), it drops them first.
    public func invalidate(ids: [ID]) async {
        if let source = source as? any InvalidatableRepository<Entity, ID> {
            await source.invalidate(ids: ids)
        }
        await tiers.invalidate(.keys(Set(ids)), nil) { try await cache.delete(ids: ids) }
    }

    /// Empties the cache; the next reads fill it again. When the source keeps copies too, it
    /// drops them first.
    public func invalidateAll() async {
        if let source = source as? any InvalidatableRepository<Entity, ID> { await source.invalidateAll() }
        await tiers.invalidate(.all, nil) { try await cache.deleteAll() }
    }
}
