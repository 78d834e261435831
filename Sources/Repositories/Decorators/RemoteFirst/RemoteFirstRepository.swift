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
/// | the remote write succeeds, the local one fails | the local copy is deleted, so it cannot be served stale, and a ``RepositoryError`` with code ``RepositoryError/Code/partiallyApplied`` is thrown: the remote has the write (nothing is lost), the local store does not (its error is ``RepositoryError/underlying``) |
/// | …and deleting the local copy fails too | the same code, saying the stale copy is still there; this process never serves it (it is left out of fallback and local-first answers, and of the streams) until a later write or mirror rewrites it. After a restart the local store may serve it until then |
///
/// Writes that share an ID run one after the other, from the remote call to the end of the
/// local update, so when two saves of one entity overlap the local store ends with the one
/// the remote holds, whatever order the remote's answers come back in. Retrying a write
/// that threw is always safe: writes are idempotent.
///
/// The local store is a copy this decorator rewrites and prunes to match the remote, so it
/// must never be a system of record such as a web API: given a ``SystemOfRecord`` as
/// `local`, the initializer stops the program with a message that says what to write instead.
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
        requireCopy(Local.self, as: "local store", of: "RemoteFirstRepository")
        self.remote = remote
        self.local = local
        self.readPolicy = readPolicy
        self.shouldFallBack = shouldFallBack
        self.tiers = _TierCoordinator(
            role: .mirror, primary: "remote", second: "local store", report: onTierFailure)
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

    // MARK: Routing

    /// When a local answer is asked for instead of the remote's.
    private enum LocalTurn {
        /// Before the remote (``ReadPolicy/localFirst``): only a complete answer will do.
        case first
        /// After the remote failed (``ReadPolicy/remoteFirst``): any non-empty answer helps.
        case fallback
    }

    /// Sends a read where ``readPolicy`` says: `local` is the local store's plain answer,
    /// `copy` a local answer fit to stand in for the remote's on its turn (or `nil`), and
    /// `remote` the remote's answer, mirrored.
    private func route<T>(
        local: () async throws -> T, copy: (LocalTurn) async throws -> T?, remote: () async throws -> T
    ) async throws -> T {
        switch readPolicy {
        case .localOnly:
            return try await local()
        case .remoteOnly:
            return try await remote()
        case .localFirst:
            if let answer = try await copy(.first) { return answer }
            return try await remote()
        case .remoteFirst:
            do {
                return try await remote()
            } catch let error where fallsBack(error) {
                if let answer = try await copy(.fallback) { return answer }
                throw error
            }
        }
    }

    private func fallsBack(_ error: any Error) -> Bool {
        !(error is CancellationError) && !Task.isCancelled && shouldFallBack(error)
    }

    // MARK: Reading

    /// Returns the entity under `id` as ``readPolicy`` says, mirroring what the remote answers.
    ///
    /// - Throws: the remote's error when the local store cannot answer in its place.
    public func fetch(id: ID) async throws -> Entity? {
        try await route(
            local: { try await local.fetch(id: id) },
            copy: { _ in try await localCopy(id).map { Optional($0) } },
            remote: { try await fetchRemote(id) })
    }

    /// The local copy of `id`, unless it is known to be stale; `nil` when reading it failed.
    func localCopy(_ id: ID) async throws -> Entity? {
        guard !tiers.isSuspect(id) else { return nil }
        return try await tiers.read(.fetch) { try await local.fetch(id: id) } ?? nil
    }

    func fetchRemote(_ id: ID) async throws -> Entity? {
        try await tiers.load(
            .key(id), read: { try await remote.fetch(id: id) },
            fill: { value, fill in
                let current = await currentCopies([id], fill)
                if let value {
                    await mirror(.key(id), .fetch, fill) {
                        if !isCurrent(value, in: current) { try await local.save(value) }
                    }
                } else if current == nil || current?[id] != nil {
                    await mirror(.key(id), .fetch, fill, removes: true) { try await local.delete(id: id) }
                }
            })
    }

    /// Returns every entity as ``readPolicy`` says; a remote answer replaces the local
    /// collection (see the type's documentation for how).
    ///
    /// - Throws: the remote's error when the local store cannot answer in its place.
    public func fetchAll() async throws -> [Entity] {
        try await route(
            local: { try await local.fetchAll() },
            copy: { turn in
                guard turn == .fallback || tiers.trustsEveryCopy else { return nil }
                return try await localCollection(.fetchAll).flatMap { $0.isEmpty ? nil : $0 }
            },
            remote: { try await fetchAllRemote() })
    }

    /// The local collection without the copies known to be stale; `nil` when reading failed.
    func localCollection(_ operation: RepositoryOperation) async throws -> [Entity]? {
        guard !tiers.trustsNoCopy else { return nil }
        return try await tiers.read(operation) { try await local.fetchAll() }.map { tiers.trusted($0) }
    }

    func fetchAllRemote() async throws -> [Entity] {
        try await tiers.load(
            .all, read: { try await remote.fetchAll() },
            fill: { values, fill in
                if await fill.replaceAll(in: local, with: values, .fetchAll) { ages.refreshed(.all) }
            })
    }

    /// Returns the entities under `ids` as ``readPolicy`` says, mirroring what the remote
    /// answers; in the order of `ids`, skipping absent and repeated IDs. A fallback answer
    /// holds what the local store has, which may be fewer.
    ///
    /// - Throws: the remote's error when the local store cannot answer in its place.
    public func fetch(ids: [ID]) async throws -> [Entity] {
        try await route(
            local: { try await local.fetch(ids: ids) },
            copy: { turn in
                guard
                    let found = try await tiers.read(
                        .fetchIDs, { try await local.fetch(ids: tiers.trusted(ids)) })
                else { return nil }
                switch turn {
                case .first: return found.count == Set(ids).count ? found : nil
                case .fallback: return found.isEmpty ? nil : found
                }
            },
            remote: { try await fetchRemote(ids: ids) })
    }

    private func fetchRemote(ids: [ID]) async throws -> [Entity] {
        let scope = KeyScope<ID>.keys(Set(ids))
        return try await tiers.load(
            scope, read: { try await remote.fetch(ids: ids) },
            fill: { values, fill in
                let current = await currentCopies(ids, fill)
                let changed = values.filter { !isCurrent($0, in: current) }
                let absent = Set(ids).subtracting(values.map(\.id))
                let gone = current.map { copies in absent.filter { copies[$0] != nil } } ?? Array(absent)
                if !values.isEmpty {
                    await mirror(.keys(Set(values.map(\.id))), .fetchIDs, fill) {
                        if !changed.isEmpty { try await local.save(contentsOf: changed) }
                    }
                }
                if !gone.isEmpty {
                    await mirror(.keys(Set(gone)), .fetchIDs, fill, removes: true) {
                        try await local.delete(ids: gone)
                    }
                }
            })
    }

    /// Returns the entities that match `query` as ``readPolicy`` says, saving the remote's
    /// answer locally.
    ///
    /// - Throws: ``RepositoryError/Code/rejected`` for a negative offset or limit (before
    ///   anything is read); the remote's error when the local store cannot answer in its place.
    public func fetch(_ query: Query<Entity>) async throws -> [Entity] {
        try query.validate()
        return try await route(
            local: { try await local.fetch(query) },
            copy: { _ in try await localAnswer(query).flatMap { $0.isEmpty ? nil : $0 } },
            remote: { try await fetchRemote(query) })
    }

    private func localAnswer(_ query: Query<Entity>) async throws -> [Entity]? {
        if tiers.trustsEveryCopy { return try await tiers.read(.fetchQuery) { try await local.fetch(query) } }
        return try await localCollection(.fetchQuery).map { try query.apply(to: $0) }
    }

    private func fetchRemote(_ query: Query<Entity>) async throws -> [Entity] {
        try await tiers.load(
            .all, read: { try await remote.fetch(query) },
            fillScope: { values in values.isEmpty ? nil : .keys(Set(values.map(\.id))) },
            fill: { values, fill in
                let current = await currentCopies(values.map(\.id), fill)
                let changed = values.filter { !isCurrent($0, in: current) }
                await mirror(.keys(Set(values.map(\.id))), .fetchQuery, fill) {
                    if !changed.isEmpty { try await local.save(contentsOf: changed) }
                }
            })
    }

    /// Counts as ``readPolicy`` says; a fallback count leaves out copies known to be stale.
    ///
    /// - Throws: the remote's error when the local store cannot answer in its place.
    public func count() async throws -> Int {
        try await route(
            local: { try await local.count() },
            copy: { _ in try await localCount().flatMap { $0 > 0 ? $0 : nil } },
            remote: { try await remote.count() })
    }

    private func localCount() async throws -> Int? {
        if tiers.trustsEveryCopy { return try await tiers.read(.count) { try await local.count() } }
        return try await localCollection(.count)?.count
    }

    // MARK: Mirroring

    /// The local copies of `ids`, or `nil` when reading them failed (then every copy is
    /// written, as if it had changed).
    private func currentCopies(_ ids: [ID], _ fill: _TierCoordinator<ID, Entity>.Fill) async -> [ID: Entity]?
    {
        guard let found = await fill.read(.fetchIDs, { try await local.fetch(ids: ids) }) else { return nil }
        return Dictionary(found.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
    }

    /// Whether the local copy already equals `entity`, so writing it would change nothing.
    /// Always `false` when the entity is not `Equatable`.
    private func isCurrent(_ entity: Entity, in copies: [ID: Entity]?) -> Bool {
        guard let copy = copies?[entity.id] else { return false }
        return equalIfEquatable(copy, entity) ?? false
    }

    /// Copies a remote answer into the local store; on success the copies in `scope` agree
    /// with the remote as of now.
    private func mirror(
        _ scope: KeyScope<ID>, _ operation: RepositoryOperation, _ fill: _TierCoordinator<ID, Entity>.Fill,
        removes: Bool = false, _ body: () async throws -> Void
    ) async {
        if await fill.copy(scope, operation, removes: removes, body) { ages.refreshed(scope) }
    }

    // MARK: Writing

    /// Writes to the remote, then copies the write into the local store; see the type's table.
    private func write(
        _ scope: KeyScope<ID>, _ operation: RepositoryOperation, remote remoteWrite: () async throws -> Void,
        local localWrite: () async throws -> Void, removal: (() async throws -> Void)? = nil
    ) async throws {
        try await tiers.write(
            scope, operation, afterPrimaryFailure: .leave, primary: remoteWrite, second: localWrite,
            removal: removal)
        ages.refreshed(scope)
    }

    /// Saves to the remote, then to the local store.
    ///
    /// - Throws: the remote's error (the local store is untouched);
    ///   ``RepositoryError/Code/partiallyApplied`` when the remote saved it but the local store
    ///   could not (see the type's table).
    public func save(_ entity: Entity) async throws {
        try await write(
            .key(entity.id), .save, remote: { try await remote.save(entity) },
            local: { try await local.save(entity) }, removal: { try await local.delete(id: entity.id) })
    }

    /// Saves the batch to the remote, then to the local store, each all or nothing.
    ///
    /// - Throws: the remote's error (the local store is untouched);
    ///   ``RepositoryError/Code/partiallyApplied`` when the remote saved it but the local store
    ///   could not (see the type's table).
    public func save(contentsOf entities: [Entity]) async throws {
        let ids = entities.map(\.id)
        try await write(
            .keys(Set(ids)), .saveContentsOf, remote: { try await remote.save(contentsOf: entities) },
            local: { try await local.save(contentsOf: entities) },
            removal: { try await local.delete(ids: ids) })
    }

    /// Deletes from the remote, then from the local store.
    ///
    /// - Throws: the remote's error (the local store is untouched);
    ///   ``RepositoryError/Code/partiallyApplied`` when the remote deleted it but the local
    ///   store kept its copy.
    public func delete(id: ID) async throws {
        try await write(
            .key(id), .delete, remote: { try await remote.delete(id: id) },
            local: { try await local.delete(id: id) })
    }

    /// Deletes from the remote, then from the local store.
    ///
    /// - Throws: the remote's error (the local store is untouched);
    ///   ``RepositoryError/Code/partiallyApplied`` when the remote deleted them but the local
    ///   store kept copies.
    public func delete(ids: [ID]) async throws {
        try await write(
            .keys(Set(ids)), .deleteIDs, remote: { try await remote.delete(ids: ids) },
            local: { try await local.delete(ids: ids) })
    }

    /// Deletes everything from the remote, then from the local store.
    ///
    /// - Throws: the remote's error (the local store is untouched);
    ///   ``RepositoryError/Code/partiallyApplied`` when the remote was emptied but the local
    ///   store could not be.
    public func deleteAll() async throws {
        try await write(
            .all, .deleteAll, remote: { try await remote.deleteAll() }, local: { try await local.deleteAll() }
        )
    }
}

extension RemoteFirstRepository: InvalidatableRepository where Remote: InvalidatableRepository {
    /// Drops the copies the remote side keeps (a cache in front of the API); the local store
    /// is not a cache and keeps its copies, which the next remote read refreshes.
    public func invalidate(ids: [ID]) async { await remote.invalidate(ids: ids) }
    /// Drops every copy the remote side keeps; the local store keeps its copies.
    public func invalidateAll() async { await remote.invalidateAll() }
}
