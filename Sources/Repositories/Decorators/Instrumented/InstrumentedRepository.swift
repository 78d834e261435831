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
public struct InstrumentedRepository<Base: Repository>: ForwardingRepository {
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

    /// Times one call and reports it.
    func around<T: Sendable>(
        _ operation: RepositoryOperation, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await timed(operation, query: nil, body)
    }

    /// Queries the base, reporting the query split by where each part runs
    /// (``RepositoryEvent/query``).
    public func fetch(_ query: Query<Entity>) async throws -> [Entity] {
        try await timed(.fetchQuery, query: query.description) { [base] in try await base.fetch(query) }
    }

    /// Counts what the base answers to the query, reporting the query split by where each
    /// part runs (``RepositoryEvent/query``).
    public func count(_ query: Query<Entity>) async throws -> Int {
        try await timed(.countQuery, query: query.description) { [base] in try await base.count(query) }
    }

    private func timed<T: Sendable>(
        _ operation: RepositoryOperation, query: String?, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let start = clock.now()
        do {
            let result = try await body()
            record(
                RepositoryEvent(
                    label: label, operation: operation, duration: clock.now() - start, outcome: .success,
                    query: query))
            return result
        } catch {
            record(
                RepositoryEvent(
                    label: label, operation: operation, duration: clock.now() - start,
                    outcome: .failure(error), query: query))
            throw error
        }
    }
}

extension InstrumentedRepository: InvalidatableRepository where Base: InvalidatableRepository {
    /// Forwards to ``base``; invalidation is not reported, as it is not a repository operation.
    public func invalidate(ids: [ID]) async { await base.invalidate(ids: ids) }
    /// Forwards to ``base``.
    public func invalidateAll() async { await base.invalidateAll() }
}
