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
/// ## Partial failures
///
/// | what fails | what happens |
/// |---|---|
/// | the source, on a write | its error is thrown and the cache is left as it was; since the write may still have landed (a lost response), this process reads the entities it touched from the source until they are rewritten |
/// | the cache, on a write | the cache's copy is removed and the write returns normally (the source has it; the next read fills the cache); reported as ``TierFailure/Stage/fill`` |
/// | the cache, on a write, and removing its copy too | throws a ``RepositoryError`` saying the source has the write but the cache still holds the old copy, with the cache's error as ``RepositoryError/underlying``; this process reads those entities from the source until they are rewritten, but after a restart the cache may serve the old copy: write again or call ``invalidate(ids:)`` |
/// | the cache, on a read | reported as ``TierFailure/Stage/read``; the source answers |
/// | the cache, on a fill | reported as ``TierFailure/Stage/fill``; the source's answer is returned |
/// | the source, on a read | its error is thrown; the cache is unchanged |
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
        self.source = source
        self.cache = cache
        self.tiers = _TierCoordinator(report: onTierFailure)
    }

    /// How many callers are waiting on a shared source read right now.
    public var waitingCallerCount: Int { tiers.waitingCallerCount }

    // MARK: Reading

    /// Returns the cached entity; on a miss reads the source and fills the cache.
    ///
    /// - Throws: the source's error when the source had to be read and failed.
    public func fetch(id: ID) async throws -> Entity? {
        let suspect = tiers.suspects.contains(id)
        if !suspect, let hit = try await tiers.read(.fetch, { try await cache.fetch(id: id) }) ?? nil {
            return hit
        }
        return try await tiers.byID.run(id) { [self] in try await load(id, removingCopy: suspect) }
    }

    private func load(_ id: ID, removingCopy: Bool) async throws -> Entity? {
        try await tiers.tracker.reading(.key(id)) { token in
            let value = try await source.fetch(id: id)
            guard value != nil || removingCopy else { return value }
            await tiers.fill(.key(id), token: token, operation: .fetch) {
                if let value { try await cache.save(value) } else { try await cache.delete(id: id) }
            }
            return value
        }
    }

    /// Returns the cached whole collection when there is one; otherwise reads the source and
    /// replaces the cache's content with its answer.
    ///
    /// - Throws: the source's error when the source had to be read and failed.
    public func fetchAll() async throws -> [Entity] {
        if let cached = try await cachedWholeSet(.fetchAll) { return cached }
        return try await tiers.whole.run(.collection) { [self] in try await loadAll() }
    }

    private func cachedWholeSet(_ operation: RepositoryOperation) async throws -> [Entity]? {
        guard let wholeSet = tiers.wholeSet, !tiers.suspects.allSuspect else { return nil }
        let ids = wholeSet.ids
        guard let entities = try await tiers.read(operation, { try await cache.fetch(ids: ids) }),
            entities.count == ids.count
        else { return nil }
        if !tiers.suspects.isEmpty, entities.contains(where: { tiers.suspects.contains($0.id) }) {
            return nil
        }
        return entities
    }

    private func loadAll() async throws -> [Entity] {
        let writes = tiers.writeCount
        return try await tiers.tracker.reading(.all) { token in
            let values = try await source.fetchAll()
            await tiers.lock.withLock(.all) {
                guard tiers.tracker.isClean(token), await replaceCache(with: values) else { return }
                tiers.recordWholeSet(.init(ids: values.map(\.id), storedAt: nil), ifWritesAre: writes)
            }
            return values
        }
    }

    /// Makes the cache hold exactly `values`: saves the entities that changed (all of them
    /// when the entity is not `Equatable`) as one batch, then deletes the others. On a
    /// failure every copy becomes suspect until a later whole read or `invalidateAll()`.
    private func replaceCache(with values: [Entity]) async -> Bool {
        do {
            let current = try await cache.fetchAll()
            let copies = Dictionary(current.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
            let changed = values.filter { entity in
                copies[entity.id].flatMap { equalIfEquatable($0, entity) } != true
            }
            if !changed.isEmpty { try await cache.save(contentsOf: changed) }
            let sourceIDs = Set(values.map(\.id))
            let stale = current.map(\.id).filter { !sourceIDs.contains($0) }
            if !stale.isEmpty { try await cache.delete(ids: stale) }
        } catch {
            tiers.suspects.mark(.all)
            tiers.report(TierFailure(stage: .fill, operation: .fetchAll, error: error))
            return false
        }
        tiers.suspects.clear(.all)
        return true
    }

    /// Returns what the cache has and reads the rest from the source in one call, filling
    /// the cache; in the order of `ids`, skipping absent and repeated IDs.
    ///
    /// - Throws: the source's error when the source had to be read and failed.
    public func fetch(ids: [ID]) async throws -> [Entity] {
        var seen = Set<ID>()
        let unique = ids.filter { seen.insert($0).inserted }
        let suspect = Set(unique.filter { tiers.suspects.contains($0) })
        let candidates = unique.filter { !suspect.contains($0) }
        var found: [ID: Entity] = [:]
        var unknown = suspect
        if let entities = try await tiers.read(.fetchIDs, { try await cache.fetch(ids: candidates) }) {
            for entity in entities { found[entity.id] = entity }
        } else {
            unknown.formUnion(candidates)
        }
        let missing = unique.filter { found[$0] == nil }
        if !missing.isEmpty {
            let scope = KeyScope<ID>.keys(Set(missing))
            let loaded = try await tiers.tracker.reading(scope) { token in
                let values = try await source.fetch(ids: missing)
                let gone = unknown.subtracting(values.map(\.id))
                await tiers.fill(scope, token: token, operation: .fetchIDs) {
                    if !values.isEmpty { try await cache.save(contentsOf: values) }
                    if !gone.isEmpty { try await cache.delete(ids: Array(gone)) }
                }
                return values
            }
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
        if let cached = try await cachedWholeSet(.fetchQuery) { return try query.apply(to: cached) }
        return try await source.fetch(query)
    }

    /// Counts the cached whole collection when there is one; otherwise asks the source.
    public func count() async throws -> Int {
        if let wholeSet = tiers.wholeSet, !tiers.suspects.allSuspect { return wholeSet.ids.count }
        return try await source.count()
    }

    // MARK: Writing

    /// Writes to the source; on success copies the write into the cache (or, failing that,
    /// removes the cache's copy).
    private func write(
        _ scope: KeyScope<ID>, _ operation: RepositoryOperation,
        source sourceWrite: () async throws -> Void,
        cache cacheWrite: () async throws -> Void,
        removal: (() async throws -> Void)?
    ) async throws {
        do {
            try await sourceWrite()
        } catch {
            // The write may have landed anyway: stop trusting the copies, but leave them.
            tiers.noteWrite(scope)
            tiers.suspects.mark(scope)
            throw error
        }
        tiers.noteWrite(scope)
        try await tiers.lock.withLock(scope) {
            do {
                try await cacheWrite()
                tiers.suspects.clear(scope)
                return
            } catch {
                tiers.report(TierFailure(stage: .fill, operation: operation, error: error))
                guard let removal else {
                    tiers.suspects.mark(scope)
                    throw RepositoryError.staleCopy(operation: operation, removed: false, underlying: error)
                }
                do {
                    try await removal()
                    tiers.suspects.clear(scope)
                } catch {
                    tiers.suspects.mark(scope)
                    throw RepositoryError.staleCopy(operation: operation, removed: false, underlying: error)
                }
            }
        }
    }

    /// Saves to the source, then to the cache.
    ///
    /// - Throws: the source's error (the cache is left as it was); a ``RepositoryError``
    ///   when the source saved it but the cache kept an old copy it could not remove.
    public func save(_ entity: Entity) async throws {
        try await write(
            .key(entity.id), .save, source: { try await source.save(entity) },
            cache: { try await cache.save(entity) }, removal: { try await cache.delete(id: entity.id) })
    }

    /// Saves the batch to the source, then to the cache, each all or nothing.
    ///
    /// - Throws: the source's error (the cache is left as it was); a ``RepositoryError``
    ///   when the source saved it but the cache kept old copies it could not remove.
    public func save(contentsOf entities: [Entity]) async throws {
        let ids = entities.map(\.id)
        try await write(
            .keys(Set(ids)), .saveContentsOf, source: { try await source.save(contentsOf: entities) },
            cache: { try await cache.save(contentsOf: entities) },
            removal: { try await cache.delete(ids: ids) })
    }

    /// Deletes from the source, then from the cache.
    ///
    /// - Throws: the source's error (the cache is left as it was); a ``RepositoryError``
    ///   when the source deleted it but the cache kept its copy.
    public func delete(id: ID) async throws {
        try await write(
            .key(id), .delete, source: { try await source.delete(id: id) },
            cache: { try await cache.delete(id: id) }, removal: nil)
    }

    /// Deletes from the source, then from the cache.
    ///
    /// - Throws: the source's error (the cache is left as it was); a ``RepositoryError``
    ///   when the source deleted them but the cache kept copies.
    public func delete(ids: [ID]) async throws {
        try await write(
            .keys(Set(ids)), .deleteIDs, source: { try await source.delete(ids: ids) },
            cache: { try await cache.delete(ids: ids) }, removal: nil)
    }

    /// Deletes everything from the source, then from the cache.
    ///
    /// - Throws: the source's error (the cache is left as it was); a ``RepositoryError``
    ///   when the source was emptied but the cache could not be.
    public func deleteAll() async throws {
        try await write(
            .all, .deleteAll, source: { try await source.deleteAll() },
            cache: { try await cache.deleteAll() },
            removal: nil)
    }
}

extension WriteThroughRepository: InvalidatableRepository {
    /// Drops the cached copies of `ids`; the next read of them fills the cache again. When
    /// the source keeps copies too (it is an ``InvalidatableRepository``), it drops them first.
    public func invalidate(ids: [ID]) async {
        if let source = source as? any InvalidatableRepository<Entity, ID> {
            await source.invalidate(ids: ids)
        }
        let scope = KeyScope<ID>.keys(Set(ids))
        tiers.noteWrite(scope)
        await tiers.lock.withLock(scope) {
            do {
                try await cache.delete(ids: ids)
                tiers.suspects.clear(scope)
            } catch {
                tiers.suspects.mark(scope)
                tiers.report(TierFailure(stage: .invalidate, operation: nil, error: error))
            }
        }
    }

    /// Empties the cache; the next reads fill it again. When the source keeps copies too, it
    /// drops them first.
    public func invalidateAll() async {
        if let source = source as? any InvalidatableRepository<Entity, ID> { await source.invalidateAll() }
        tiers.noteWrite(.all)
        await tiers.lock.withLock(.all) {
            do {
                try await cache.deleteAll()
                tiers.suspects.clear(.all)
            } catch {
                tiers.suspects.mark(.all)
                tiers.report(TierFailure(stage: .invalidate, operation: nil, error: error))
            }
        }
    }
}
