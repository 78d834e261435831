/// A repository whose concurrent identical reads share one call to the repository beneath
/// (single flight).
///
/// ```swift
/// let products = api.coalescing()
/// // A screen and a widget ask for product 42 at once: one request goes out.
/// async let a = products.fetch(id: 42)
/// async let b = products.fetch(id: 42)
/// ```
///
/// `fetch(id:)` (per ID), `fetchAll()`, `fetch(ids:)` (per list of IDs) and `count()` are
/// shared: a caller that asks while the same read is in flight waits for that read's
/// answer, or its error, instead of starting another. Queries hold closures that cannot be
/// compared, so `fetch(_:)` always passes through, as do writes.
///
/// - A read never hands back an answer older than a write the caller saw finish: when any
///   write returns (or throws, since it may have landed), reads already in flight are
///   detached, so callers that arrive afterwards start a fresh read.
/// - A caller that is cancelled stops waiting at once with `CancellationError`; the shared
///   read is cancelled only when every caller waiting on it is gone.
/// - Nothing is cached: once a read returns, the next caller starts a new one.
public struct CoalescingRepository<Base: Repository>: Repository {
    /// The base's entity.
    public typealias Entity = Base.Entity
    /// The base's ID.
    public typealias ID = Base.ID

    private enum Whole: Hashable, Sendable { case collection }

    /// The repository calls are passed to.
    public let base: Base
    private let byID = SingleFlight<ID, Entity?>()
    private let byIDs = SingleFlight<[ID], [Entity]>()
    private let everything = SingleFlight<Whole, [Entity]>()
    private let counts = SingleFlight<Whole, Int>()

    /// Wraps `base`.
    public init(_ base: Base) {
        self.base = base
    }

    /// How many callers are waiting on a shared read right now: a test hook, for tests that
    /// must know every caller has joined before letting the read finish.
    package var waitingCallerCount: Int {
        byID.waitingCallerCount + byIDs.waitingCallerCount + everything.waitingCallerCount
            + counts.waitingCallerCount
    }

    private func detachReads() {
        byID.detachAll()
        byIDs.detachAll()
        everything.detachAll()
        counts.detachAll()
    }

    private func write(_ body: () async throws -> Void) async throws {
        defer { detachReads() }
        try await body()
    }

    /// Fetches from ``base``, sharing the call with concurrent callers for the same ID.
    public func fetch(id: ID) async throws -> Entity? {
        try await byID.run(id) { [base] in try await base.fetch(id: id) }
    }

    /// Fetches from ``base``, sharing the call with concurrent callers.
    public func fetchAll() async throws -> [Entity] {
        try await everything.run(.collection) { [base] in try await base.fetchAll() }
    }

    /// Fetches from ``base``, sharing the call with concurrent callers for the same IDs in
    /// the same order.
    public func fetch(ids: [ID]) async throws -> [Entity] {
        try await byIDs.run(ids) { [base] in try await base.fetch(ids: ids) }
    }

    /// Queries ``base``; never shared.
    public func fetch(_ query: Query<Entity>) async throws -> [Entity] {
        try await base.fetch(query)
    }

    /// Counts ``base``, sharing the call with concurrent callers.
    public func count() async throws -> Int {
        try await counts.run(.collection) { [base] in try await base.count() }
    }

    /// Saves to ``base``; afterwards no caller joins a read that began before.
    public func save(_ entity: Entity) async throws {
        try await write { try await base.save(entity) }
    }

    /// Saves to ``base``; afterwards no caller joins a read that began before.
    public func save(contentsOf entities: [Entity]) async throws {
        try await write { try await base.save(contentsOf: entities) }
    }

    /// Deletes from ``base``; afterwards no caller joins a read that began before.
    public func delete(id: ID) async throws {
        try await write { try await base.delete(id: id) }
    }

    /// Deletes from ``base``; afterwards no caller joins a read that began before.
    public func delete(ids: [ID]) async throws {
        try await write { try await base.delete(ids: ids) }
    }

    /// Deletes everything from ``base``; afterwards no caller joins a read that began before.
    public func deleteAll() async throws {
        try await write { try await base.deleteAll() }
    }
}

extension CoalescingRepository: InvalidatableRepository where Base: InvalidatableRepository {
    /// Forwards to ``base``, then detaches reads in flight so later callers read afresh.
    public func invalidate(ids: [ID]) async {
        await base.invalidate(ids: ids)
        detachReads()
    }

    /// Forwards to ``base``, then detaches reads in flight so later callers read afresh.
    public func invalidateAll() async {
        await base.invalidateAll()
        detachReads()
    }
}

extension CoalescingRepository: VersionTaggingRepository where Base: VersionTaggingRepository {
    /// The base's tagged copy of `id`; never shared, since a conditional write must act on
    /// the tag it read itself.
    public func fetchTagged(id: ID) async throws -> TaggedEntity<Entity>? {
        try await base.fetchTagged(id: id)
    }

    /// The base's conditional save; afterwards no caller joins a read that began before.
    public func save(_ entity: Entity, ifMatch tag: String) async throws {
        try await write { try await base.save(entity, ifMatch: tag) }
    }

    /// The base's create-if-absent; afterwards no caller joins a read that began before.
    public func saveIfAbsent(_ entity: Entity) async throws {
        try await write { try await base.saveIfAbsent(entity) }
    }

    /// The base's conditional delete; afterwards no caller joins a read that began before.
    public func delete(id: ID, ifMatch tag: String) async throws {
        try await write { try await base.delete(id: id, ifMatch: tag) }
    }
}
