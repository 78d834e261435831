/// A remote source with a local store beside it: reads go to the remote and are mirrored
/// into the local store, which answers when the remote fails; writes go to the remote, then
/// the local store.
///
/// ```swift
/// let products = api
///     .retrying(.default)
///     .circuitBreaker(.default)
///     .fallback(to: try await FileRepository<Product>(fileURL: url))
///
/// for try await products in products.valuesAll() {   // local first, then remote
///     show(products.value, stale: products.origin == .local)
/// }
/// ```
///
/// ## Reads (``ReadPolicy/remoteFirst``, the default)
///
/// The remote is read; its answer is copied into the local store and returned. When the
/// remote throws an error the fallback predicate accepts (by default every error but
/// `CancellationError`, so ``RepositoryError/Code/circuitOpen`` falls back too), the local
/// store answers instead, and when it has nothing (`nil`, an empty list, a zero count) the
/// remote's error is thrown. Mirroring, per read:
///
/// - `fetch(id:)`: the remote's entity is saved locally; a `nil` deletes the local copy.
/// - `fetchAll()`: the local collection is replaced by the remote's. The local store's
///   protocol has no transaction across calls, so it is done in two steps that each keep
///   the local store usable offline: first the remote's entities are saved as one batch
///   (all or nothing: after it, every remote entity is there and current), then the local
///   entities the remote no longer has are deleted. Readers in between see the new
///   entities plus some the remote deleted, never fewer. Entities the local store already
///   held keep their local place; new ones are added in the remote's order.
/// - `fetch(ids:)`: found entities are saved locally; requested IDs the remote lacks are
///   deleted locally.
/// - `fetch(_:)`: the entities found are saved locally (nothing is deleted, since a query
///   sees only part of the collection). `count()` is not mirrored.
///
/// When the entity is `Equatable`, copies that already equal the remote's are not written
/// again, which spares a durable local store a write per read.
///
/// A failure to mirror never hides the remote's answer: it is returned, and the failure is
/// reported to `onTierFailure` as ``TierFailure/Stage/fill``. The local store then holds an
/// older copy, which it may serve offline, except a copy the remote had deleted: this
/// process never serves that one (see below). A read that raced a write is not mirrored,
/// so it never puts an older value back.
///
/// ## Writes
///
/// | what happens | result |
/// |---|---|
/// | the remote write fails | its error is thrown; the local store is untouched |
/// | the remote write succeeds, then the local one | returns |
/// | the remote write succeeds, the local one fails | the local copy is deleted, so it cannot be served stale, and a ``RepositoryError`` is thrown that says the remote has the write but the local store could not take it (its ``RepositoryError/underlying`` is the local error, its code the local error's, or `unavailable`) |
/// | …and deleting the local copy fails too | the same error, saying the stale copy is still there; this process never serves it (it is left out of fallback and local-first answers, and of the streams) until a later write or mirror rewrites it. After a restart the local store may serve it until then |
///
/// Retrying a write that threw is always safe: writes are idempotent.
///
/// ## Streams
///
/// ``values(id:)`` and ``valuesAll()`` yield the local value first (when the local store
/// has one), then the remote's, each tagged with its ``Sourced/origin`` and
/// ``Sourced/age``: the stale-while-revalidate read a screen wants.
public struct RemoteFirstRepository<Remote: Repository, Local: Repository>: Repository
where Local.Entity == Remote.Entity, Local.ID == Remote.ID {
    /// The remote's entity.
    public typealias Entity = Remote.Entity
    /// The remote's ID.
    public typealias ID = Remote.ID

    /// The remote source, the system of record.
    public let remote: Remote
    /// The local store that mirrors it.
    public let local: Local
    /// Where reads go.
    public let readPolicy: ReadPolicy
    private let shouldFallBack: @Sendable (any Error) -> Bool
    let tiers: _TierCoordinator<ID, Entity>
    let ages: MirrorAges<ID>

    /// Puts `local` beside `remote`.
    ///
    /// - Parameters:
    ///   - remote: the source of record.
    ///   - local: mirrors the remote; answers when the remote fails.
    ///   - readPolicy: where reads go; ``ReadPolicy/remoteFirst`` by default.
    ///   - clock: measures the ages the streams report.
    ///   - shouldFallBack: whether a remote failure is answered from the local store; by
    ///     default every error but `CancellationError`. A failure while the task is
    ///     cancelled never falls back.
    ///   - onTierFailure: told about local failures that were worked around.
    public init(
        remote: Remote, local: Local, readPolicy: ReadPolicy = .remoteFirst,
        clock: some Clock<Duration> = ContinuousClock(),
        shouldFallBack: @escaping @Sendable (any Error) -> Bool = { !($0 is CancellationError) },
        onTierFailure: @escaping @Sendable (TierFailure) -> Void = { _ in }
    ) {
        self.remote = remote
        self.local = local
        self.readPolicy = readPolicy
        self.shouldFallBack = shouldFallBack
        self.tiers = _TierCoordinator(report: onTierFailure)
        self.ages = MirrorAges(clock: ElapsedClock(clock))
    }

    /// This repository reading as `policy` says, sharing everything else (the mirror's
    /// bookkeeping included) with this one.
    public func reading(_ policy: ReadPolicy) -> RemoteFirstRepository {
        RemoteFirstRepository(copying: self, readPolicy: policy)
    }

    private init(copying other: RemoteFirstRepository, readPolicy: ReadPolicy) {
        remote = other.remote
        local = other.local
        self.readPolicy = readPolicy
        shouldFallBack = other.shouldFallBack
        tiers = other.tiers
        ages = other.ages
    }

    private func fallsBack(_ error: any Error) -> Bool {
        !(error is CancellationError) && !Task.isCancelled && shouldFallBack(error)
    }

    // MARK: Reading

    /// Returns the entity under `id` as ``readPolicy`` says, mirroring what the remote answers.
    ///
    /// - Throws: the remote's error when the local store cannot answer in its place.
    public func fetch(id: ID) async throws -> Entity? {
        switch readPolicy {
        case .localOnly:
            return try await local.fetch(id: id)
        case .remoteOnly:
            return try await fetchRemote(id)
        case .localFirst:
            if let copy = try await localCopy(id) { return copy }
            return try await fetchRemote(id)
        case .remoteFirst:
            do {
                return try await fetchRemote(id)
            } catch let error where fallsBack(error) {
                if let copy = try await localCopy(id) { return copy }
                throw error
            }
        }
    }

    func localCopy(_ id: ID) async throws -> Entity? {
        guard !tiers.suspects.contains(id) else { return nil }
        return try await tiers.read(.fetch) { try await local.fetch(id: id) } ?? nil
    }

    func fetchRemote(_ id: ID) async throws -> Entity? {
        try await tiers.tracker.reading(.key(id)) { token in
            let value = try await remote.fetch(id: id)
            await whenClean(.key(id), token: token) {
                let current = await currentCopies([id])
                if let value {
                    await mirror(.key(id), .fetch) {
                        if !isCurrent(value, in: current) { try await local.save(value) }
                    }
                } else if current == nil || current?[id] != nil {
                    await mirror(.key(id), .fetch, suspectOnFailure: true) { try await local.delete(id: id) }
                }
            }
            return value
        }
    }

    /// Returns every entity as ``readPolicy`` says; a remote answer replaces the local
    /// collection (see the type's documentation for how).
    ///
    /// - Throws: the remote's error when the local store cannot answer in its place.
    public func fetchAll() async throws -> [Entity] {
        switch readPolicy {
        case .localOnly:
            return try await local.fetchAll()
        case .remoteOnly:
            return try await fetchAllRemote()
        case .localFirst:
            if tiers.suspects.isEmpty,
                let all = try await tiers.read(.fetchAll, { try await local.fetchAll() }),
                !all.isEmpty
            {
                return all
            }
            return try await fetchAllRemote()
        case .remoteFirst:
            do {
                return try await fetchAllRemote()
            } catch let error where fallsBack(error) {
                if let all = try await localCollection(.fetchAll), !all.isEmpty { return all }
                throw error
            }
        }
    }

    /// The local collection without the copies known to be stale; `nil` when reading failed.
    func localCollection(_ operation: RepositoryOperation) async throws -> [Entity]? {
        guard !tiers.suspects.allSuspect else { return nil }
        guard let all = try await tiers.read(operation, { try await local.fetchAll() }) else { return nil }
        if tiers.suspects.isEmpty { return all }
        return all.filter { !tiers.suspects.contains($0.id) }
    }

    func fetchAllRemote() async throws -> [Entity] {
        try await tiers.tracker.reading(.all) { token in
            let values = try await remote.fetchAll()
            await whenClean(.all, token: token) { await replaceLocal(with: values) }
            return values
        }
    }

    /// Saves the remote's collection locally as one batch (only the entities that changed,
    /// when the entity is `Equatable`), then deletes what it lacks.
    private func replaceLocal(with values: [Entity]) async {
        let current: [Entity]
        do {
            current = try await local.fetchAll()
        } catch {
            tiers.report(TierFailure(stage: .read, operation: .fetchAll, error: error))
            return
        }
        let currentByID = Dictionary(current.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
        let changed = values.filter { !isCurrent($0, in: currentByID) }
        let saved = await mirror(.keys(Set(values.map(\.id))), .fetchAll) {
            if !changed.isEmpty { try await local.save(contentsOf: changed) }
        }
        guard saved else { return }
        let remoteIDs = Set(values.map(\.id))
        let stale = current.map(\.id).filter { !remoteIDs.contains($0) }
        if !stale.isEmpty {
            let deleted = await mirror(.keys(Set(stale)), .fetchAll, suspectOnFailure: true) {
                try await local.delete(ids: stale)
            }
            guard deleted else { return }
        }
        tiers.suspects.clear(.all)
        ages.refreshed(.all)
    }

    /// Returns the entities under `ids` as ``readPolicy`` says, mirroring what the remote
    /// answers; in the order of `ids`, skipping absent and repeated IDs. A fallback answer
    /// holds what the local store has, which may be fewer.
    ///
    /// - Throws: the remote's error when the local store cannot answer in its place.
    public func fetch(ids: [ID]) async throws -> [Entity] {
        switch readPolicy {
        case .localOnly:
            return try await local.fetch(ids: ids)
        case .remoteOnly:
            return try await fetchRemote(ids: ids)
        case .localFirst:
            let wanted = Set(ids).count
            if let found = try await localCopies(ids), found.count == wanted { return found }
            return try await fetchRemote(ids: ids)
        case .remoteFirst:
            do {
                return try await fetchRemote(ids: ids)
            } catch let error where fallsBack(error) {
                if let found = try await localCopies(ids), !found.isEmpty { return found }
                throw error
            }
        }
    }

    private func localCopies(_ ids: [ID]) async throws -> [Entity]? {
        let trusted = tiers.suspects.isEmpty ? ids : ids.filter { !tiers.suspects.contains($0) }
        return try await tiers.read(.fetchIDs) { try await local.fetch(ids: trusted) }
    }

    private func fetchRemote(ids: [ID]) async throws -> [Entity] {
        let scope = KeyScope<ID>.keys(Set(ids))
        return try await tiers.tracker.reading(scope) { token in
            let values = try await remote.fetch(ids: ids)
            await whenClean(scope, token: token) {
                let current = await currentCopies(ids)
                let changed = values.filter { !isCurrent($0, in: current) }
                let absent = Set(ids).subtracting(values.map(\.id))
                let gone = current.map { copies in absent.filter { copies[$0] != nil } } ?? Array(absent)
                if !values.isEmpty {
                    await mirror(.keys(Set(values.map(\.id))), .fetchIDs) {
                        if !changed.isEmpty { try await local.save(contentsOf: changed) }
                    }
                }
                if !gone.isEmpty {
                    await mirror(.keys(Set(gone)), .fetchIDs, suspectOnFailure: true) {
                        try await local.delete(ids: gone)
                    }
                }
            }
            return values
        }
    }

    /// Returns the entities that match `query` as ``readPolicy`` says, saving the remote's
    /// answer locally.
    ///
    /// - Throws: ``RepositoryError/Code/rejected`` for a negative offset or limit (before
    ///   anything is read); the remote's error when the local store cannot answer in its place.
    public func fetch(_ query: Query<Entity>) async throws -> [Entity] {
        try query.validate()
        switch readPolicy {
        case .localOnly:
            return try await local.fetch(query)
        case .remoteOnly:
            return try await fetchRemote(query)
        case .localFirst:
            if let found = try await localAnswer(query), !found.isEmpty { return found }
            return try await fetchRemote(query)
        case .remoteFirst:
            do {
                return try await fetchRemote(query)
            } catch let error where fallsBack(error) {
                if let found = try await localAnswer(query), !found.isEmpty { return found }
                throw error
            }
        }
    }

    private func localAnswer(_ query: Query<Entity>) async throws -> [Entity]? {
        if tiers.suspects.isEmpty {
            return try await tiers.read(.fetchQuery) { try await local.fetch(query) }
        }
        return try await localCollection(.fetchQuery).map { try query.apply(to: $0) }
    }

    private func fetchRemote(_ query: Query<Entity>) async throws -> [Entity] {
        try await tiers.tracker.reading(.all) { token in
            let values = try await remote.fetch(query)
            guard !values.isEmpty else { return values }
            let scope = KeyScope<ID>.keys(Set(values.map(\.id)))
            await whenClean(scope, token: token) {
                let current = await currentCopies(values.map(\.id))
                let changed = values.filter { !isCurrent($0, in: current) }
                await mirror(scope, .fetchQuery) {
                    if !changed.isEmpty { try await local.save(contentsOf: changed) }
                }
            }
            return values
        }
    }

    /// Counts as ``readPolicy`` says; a fallback count leaves out copies known to be stale.
    ///
    /// - Throws: the remote's error when the local store cannot answer in its place.
    public func count() async throws -> Int {
        switch readPolicy {
        case .localOnly:
            return try await local.count()
        case .remoteOnly:
            return try await remote.count()
        case .localFirst:
            if let count = try await localCount(), count > 0 { return count }
            return try await remote.count()
        case .remoteFirst:
            do {
                return try await remote.count()
            } catch let error where fallsBack(error) {
                if let count = try await localCount(), count > 0 { return count }
                throw error
            }
        }
    }

    private func localCount() async throws -> Int? {
        if tiers.suspects.isEmpty { return try await tiers.read(.count) { try await local.count() } }
        return try await localCollection(.count)?.count
    }

    // MARK: Mirroring

    /// The local copies of `ids`, or `nil` when reading them failed (then every copy is
    /// written, as if it had changed).
    private func currentCopies(_ ids: [ID]) async -> [ID: Entity]? {
        guard let found = try? await local.fetch(ids: ids) else { return nil }
        return Dictionary(found.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
    }

    /// Whether the local copy already equals `entity`, so writing it would change nothing.
    /// Always `false` when the entity is not `Equatable`.
    private func isCurrent(_ entity: Entity, in copies: [ID: Entity]?) -> Bool {
        guard let copy = copies?[entity.id] else { return false }
        return equalIfEquatable(copy, entity) ?? false
    }

    /// Runs `body` holding the lock for `scope`, unless a write overlapping the read `token`
    /// was noted since it began.
    private func whenClean(_ scope: KeyScope<ID>, token: UInt64, _ body: () async -> Void) async {
        await tiers.lock.withLock(scope) {
            guard tiers.tracker.isClean(token) else { return }
            await body()
        }
    }

    /// Copies a remote answer into the local store. On success the copies in `scope` are
    /// current; on failure the failure is reported, and the copies become suspect when
    /// `suspectOnFailure` (the remote deleted them, so serving them would be wrong).
    @discardableResult
    private func mirror(
        _ scope: KeyScope<ID>, _ operation: RepositoryOperation, suspectOnFailure: Bool = false,
        _ body: () async throws -> Void
    ) async -> Bool {
        do {
            try await body()
        } catch {
            if suspectOnFailure { tiers.suspects.mark(scope) }
            tiers.report(TierFailure(stage: .fill, operation: operation, error: error))
            return false
        }
        tiers.suspects.clear(scope)
        ages.refreshed(scope)
        return true
    }

    // MARK: Writing

    /// Copies a write the remote accepted into the local store; see the type's table.
    private func mirrorWrite(
        _ scope: KeyScope<ID>, _ operation: RepositoryOperation,
        write: () async throws -> Void, removal: (() async throws -> Void)?
    ) async throws {
        tiers.noteWrite(scope)
        try await tiers.lock.withLock(scope) {
            let failure: any Error
            do {
                try await write()
                tiers.suspects.clear(scope)
                ages.refreshed(scope)
                return
            } catch {
                failure = error
            }
            var removed = false
            if let removal {
                do {
                    try await removal()
                    removed = true
                } catch {
                    // Reported below through the thrown error, which says the copy is still there.
                }
            }
            if removed { tiers.suspects.clear(scope) } else { tiers.suspects.mark(scope) }
            throw RepositoryError.staleCopy(
                operation: operation, removed: removed, underlying: failure, primary: "remote",
                secondStore: "local store")
        }
    }

    /// Saves to the remote, then to the local store.
    ///
    /// - Throws: the remote's error (the local store is untouched); a ``RepositoryError``
    ///   when the remote saved it but the local store could not (see the type's table).
    public func save(_ entity: Entity) async throws {
        try await remote.save(entity)
        try await mirrorWrite(
            .key(entity.id), .save, write: { try await local.save(entity) },
            removal: { try await local.delete(id: entity.id) })
    }

    /// Saves the batch to the remote, then to the local store, each all or nothing.
    ///
    /// - Throws: the remote's error (the local store is untouched); a ``RepositoryError``
    ///   when the remote saved it but the local store could not (see the type's table).
    public func save(contentsOf entities: [Entity]) async throws {
        try await remote.save(contentsOf: entities)
        let ids = entities.map(\.id)
        try await mirrorWrite(
            .keys(Set(ids)), .saveContentsOf, write: { try await local.save(contentsOf: entities) },
            removal: { try await local.delete(ids: ids) })
    }

    /// Deletes from the remote, then from the local store.
    ///
    /// - Throws: the remote's error (the local store is untouched); a ``RepositoryError``
    ///   when the remote deleted it but the local store kept its copy.
    public func delete(id: ID) async throws {
        try await remote.delete(id: id)
        try await mirrorWrite(.key(id), .delete, write: { try await local.delete(id: id) }, removal: nil)
    }

    /// Deletes from the remote, then from the local store.
    ///
    /// - Throws: the remote's error (the local store is untouched); a ``RepositoryError``
    ///   when the remote deleted them but the local store kept copies.
    public func delete(ids: [ID]) async throws {
        try await remote.delete(ids: ids)
        try await mirrorWrite(
            .keys(Set(ids)), .deleteIDs, write: { try await local.delete(ids: ids) }, removal: nil)
    }

    /// Deletes everything from the remote, then from the local store.
    ///
    /// - Throws: the remote's error (the local store is untouched); a ``RepositoryError``
    ///   when the remote was emptied but the local store could not be.
    public func deleteAll() async throws {
        try await remote.deleteAll()
        try await mirrorWrite(.all, .deleteAll, write: { try await local.deleteAll() }, removal: nil)
    }
}

extension RemoteFirstRepository: InvalidatableRepository where Remote: InvalidatableRepository {
    /// Drops the copies the remote side keeps (a cache in front of the API); the local store
    /// is not a cache and keeps its copies, which the next remote read refreshes.
    public func invalidate(ids: [ID]) async { await remote.invalidate(ids: ids) }
    /// Drops every copy the remote side keeps; the local store keeps its copies.
    public func invalidateAll() async { await remote.invalidateAll() }
}
