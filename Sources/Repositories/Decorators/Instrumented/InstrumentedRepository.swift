/// A repository that reports every operation, its duration and its outcome, then passes
/// the call on unchanged.
///
/// ```swift
/// let products = api.instrumented { event in
///     logger.debug("\(event)")          // "Product fetchAll() succeeded in 0.21 seconds"
///     metrics.record(event.operation, event.duration, success: event.outcome.isSuccess)
/// }
/// ```
///
/// `record` is called once per operation, after it returned or threw, on the caller's task;
/// keep it quick (hand slow work to another task). Every operation, customization points
/// included, reaches the base's own implementation, and its result or error is passed back
/// untouched.
public struct InstrumentedRepository<Base: Repository>: Repository {
    /// The base's entity.
    public typealias Entity = Base.Entity
    /// The base's ID.
    public typealias ID = Base.ID

    /// The repository calls are passed to.
    public let base: Base
    /// The label every event carries.
    public let label: String
    private let clock: ElapsedClock
    private let record: @Sendable (RepositoryEvent) -> Void

    /// Wraps `base`, timing each call on `clock` and handing each event to `record`.
    public init(
        _ base: Base, label: String? = nil, clock: some Clock<Duration> = ContinuousClock(),
        record: @escaping @Sendable (RepositoryEvent) -> Void
    ) {
        self.base = base
        self.label = label ?? String(describing: Base.Entity.self)
        self.clock = ElapsedClock(clock)
        self.record = record
    }

    private func measure<T>(_ operation: RepositoryOperation, _ body: () async throws -> T) async throws -> T
    {
        let start = clock.now()
        do {
            let result = try await body()
            record(
                RepositoryEvent(
                    label: label, operation: operation, duration: clock.now() - start, outcome: .success))
            return result
        } catch {
            record(
                RepositoryEvent(
                    label: label, operation: operation, duration: clock.now() - start,
                    outcome: .failure(error)))
            throw error
        }
    }

    /// Fetches from ``base`` and reports it.
    public func fetch(id: ID) async throws -> Entity? {
        try await measure(.fetch) { try await base.fetch(id: id) }
    }
    /// Fetches from ``base`` and reports it.
    public func fetchAll() async throws -> [Entity] {
        try await measure(.fetchAll) { try await base.fetchAll() }
    }
    /// Saves to ``base`` and reports it.
    public func save(_ entity: Entity) async throws {
        try await measure(.save) { try await base.save(entity) }
    }
    /// Saves to ``base`` and reports it.
    public func save(contentsOf entities: [Entity]) async throws {
        try await measure(.saveContentsOf) { try await base.save(contentsOf: entities) }
    }
    /// Deletes from ``base`` and reports it.
    public func delete(id: ID) async throws {
        try await measure(.delete) { try await base.delete(id: id) }
    }
    /// Deletes everything from ``base`` and reports it.
    public func deleteAll() async throws {
        try await measure(.deleteAll) { try await base.deleteAll() }
    }
    /// Fetches from ``base`` and reports it.
    public func fetch(ids: [ID]) async throws -> [Entity] {
        try await measure(.fetchIDs) { try await base.fetch(ids: ids) }
    }
    /// Queries ``base`` and reports it.
    public func fetch(_ query: Query<Entity>) async throws -> [Entity] {
        try await measure(.fetchQuery) { try await base.fetch(query) }
    }
    /// Counts ``base`` and reports it.
    public func count() async throws -> Int {
        try await measure(.count) { try await base.count() }
    }
    /// Deletes from ``base`` and reports it.
    public func delete(ids: [ID]) async throws {
        try await measure(.deleteIDs) { try await base.delete(ids: ids) }
    }
}

extension InstrumentedRepository: InvalidatableRepository where Base: InvalidatableRepository {
    /// Forwards to ``base``; invalidation is not reported, as it is not a repository operation.
    public func invalidate(ids: [ID]) async { await base.invalidate(ids: ids) }
    /// Forwards to ``base``.
    public func invalidateAll() async { await base.invalidateAll() }
}
