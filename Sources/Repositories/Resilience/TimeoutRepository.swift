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
public struct TimeoutRepository<Base: Repository>: ForwardingRepository {
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

    /// Races one call against the limit.
    func around<T: Sendable>(
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
}

extension TimeoutRepository: InvalidatableRepository where Base: InvalidatableRepository {
    /// Forwards to ``base``, without a limit.
    public func invalidate(ids: [ID]) async { await base.invalidate(ids: ids) }
    /// Forwards to ``base``, without a limit.
    public func invalidateAll() async { await base.invalidateAll() }
}
