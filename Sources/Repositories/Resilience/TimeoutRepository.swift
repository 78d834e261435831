/// A repository whose every call must finish within a time limit, or is cancelled and
/// throws ``RepositoryError/Code/timedOut``.
///
/// ```swift
/// let products = api.timeout(.seconds(5))
/// ```
///
/// Each call runs in a child task raced against a sleep of ``limit`` on the clock.
///
/// - The call finishes first: its result or error is returned as it was, and the sleep is
///   cancelled.
/// - The limit passes first: the call beneath is cancelled and
///   ``RepositoryError/Code/timedOut`` is thrown at once, without waiting for the call to
///   wind down; a store that ignores cancellation finishes in the background and its
///   result is dropped. A write that timed out may therefore still land: treat `timedOut`
///   on a write as "unknown", and read or retry (writes are idempotent).
/// - The caller is cancelled first: the call beneath is cancelled, and its outcome is
///   returned when it ends (a cancelled batch is reported as what it did: saved whole, or
///   not at all), or `timedOut` when the limit passes first.
public struct TimeoutRepository<Base: Repository>: Repository {
    /// The base's entity.
    public typealias Entity = Base.Entity
    /// The base's ID.
    public typealias ID = Base.ID

    /// The repository calls are passed to.
    public let base: Base
    /// How long each call may take.
    public let limit: Duration
    private let clock: ElapsedClock

    /// Wraps `base`, limiting each call to `limit` on `clock`.
    ///
    /// - Precondition: `limit` is not negative.
    public init(_ base: Base, limit: Duration, clock: some Clock<Duration> = ContinuousClock()) {
        precondition(limit >= .zero, "TimeoutRepository needs a limit that is not negative, got \(limit)")
        self.base = base
        self.limit = limit
        self.clock = ElapsedClock(clock)
    }

    private func race<T: Sendable>(
        _ operation: RepositoryOperation, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let race = TimeoutRace<T>()
        let limit = limit
        let clock = clock
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                race.install(continuation)
                race.setWork(
                    Task {
                        do {
                            race.finish(.success(try await body()))
                        } catch {
                            race.finish(.failure(error))
                        }
                    })
                race.add(
                    Task {
                        do {
                            try await clock.sleep(limit)
                        } catch {
                            return  // the call finished first and cancelled the sleep
                        }
                        race.finish(
                            .failure(RepositoryError.timedOut(after: limit, operation: operation.description))
                        )
                    })
            }
        } onCancel: {
            // The call's own outcome still decides, so a cancelled batch is reported as what
            // it did (saved whole, or not at all); the timer still bounds the wait.
            race.cancelWork()
        }
    }

    /// Fetches from ``base`` within the limit.
    public func fetch(id: ID) async throws -> Entity? {
        try await race(.fetch) { [base] in try await base.fetch(id: id) }
    }
    /// Fetches from ``base`` within the limit.
    public func fetchAll() async throws -> [Entity] {
        try await race(.fetchAll) { [base] in try await base.fetchAll() }
    }
    /// Saves to ``base`` within the limit; on `timedOut` the save may still land.
    public func save(_ entity: Entity) async throws {
        try await race(.save) { [base] in try await base.save(entity) }
    }
    /// Saves to ``base`` within the limit; on `timedOut` the batch may still land, whole.
    public func save(contentsOf entities: [Entity]) async throws {
        try await race(.saveContentsOf) { [base] in try await base.save(contentsOf: entities) }
    }
    /// Deletes from ``base`` within the limit; on `timedOut` the delete may still land.
    public func delete(id: ID) async throws {
        try await race(.delete) { [base] in try await base.delete(id: id) }
    }
    /// Deletes everything from ``base`` within the limit; on `timedOut` it may still land.
    public func deleteAll() async throws {
        try await race(.deleteAll) { [base] in try await base.deleteAll() }
    }
    /// Fetches from ``base`` within the limit.
    public func fetch(ids: [ID]) async throws -> [Entity] {
        try await race(.fetchIDs) { [base] in try await base.fetch(ids: ids) }
    }
    /// Queries ``base`` within the limit.
    public func fetch(_ query: Query<Entity>) async throws -> [Entity] {
        try await race(.fetchQuery) { [base] in try await base.fetch(query) }
    }
    /// Counts ``base`` within the limit.
    public func count() async throws -> Int {
        try await race(.count) { [base] in try await base.count() }
    }
    /// Deletes from ``base`` within the limit; on `timedOut` the delete may still land.
    public func delete(ids: [ID]) async throws {
        try await race(.deleteIDs) { [base] in try await base.delete(ids: ids) }
    }
}

extension TimeoutRepository: InvalidatableRepository where Base: InvalidatableRepository {
    /// Forwards to ``base``, without a limit.
    public func invalidate(ids: [ID]) async { await base.invalidate(ids: ids) }
    /// Forwards to ``base``, without a limit.
    public func invalidateAll() async { await base.invalidateAll() }
}
