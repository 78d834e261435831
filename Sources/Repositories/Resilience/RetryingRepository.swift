import Synchronization

/// A repository that tries a failed call again, waiting between attempts as its
/// ``RetryPolicy`` says.
///
/// ```swift
/// let products = api.retrying(.default)
/// let tested = api.retrying(RetryPolicy(seed: 7), clock: manualClock)   // exact schedule in tests
/// ```
///
/// Every operation is retried the same way (writes included: they are idempotent by the
/// laws of ``Repository``), each reaching the base's own implementation; each attempt of a
/// batch is all or nothing, as the base's batch is. All attempts of one call run with one
/// ``IdempotencyKey`` (the caller's, else a new one), so a store that sends it lets the
/// server apply the write once.
///
/// - A failure is retried when attempts remain and ``RetryPolicy/shouldRetry`` accepts it;
///   otherwise it is thrown as it was, so the layers above still see its code. After the
///   last attempt the last failure is thrown.
/// - The wait is ``RetryPolicy/delay(beforeRetry:using:)``, raised to the failure's
///   ``RepositoryError/retryAfter`` when that is longer. A `retryAfter` beyond
///   ``RetryPolicy/maxDelay`` is not waited for: the failure is thrown at once.
/// - Cancellation ends it at once: a cancelled wait throws `CancellationError`, and a
///   failure while cancelled is never retried.
/// - Waits sleep on the clock given (`ContinuousClock` by default), so tests drive them
///   with a `ManualClock`.
///
/// To log each attempt, instrument beneath the retry: `api.instrumented { … }.retrying(.default)`.
public struct RetryingRepository<Base: Repository>: ForwardingRepository {
    /// The base's entity.
    public typealias Entity = Base.Entity
    /// The base's ID.
    public typealias ID = Base.ID

    /// The repository calls are passed to.
    public let base: Base
    /// When and how long to wait.
    public let policy: RetryPolicy
    private let clock: ElapsedClock
    private let random: JitterSource

    /// Wraps `base`, retrying as `policy` says and waiting on `clock`.
    public init(_ base: Base, policy: RetryPolicy = .default, clock: some Clock<Duration> = ContinuousClock())
    {
        self.base = base
        self.policy = policy
        self.clock = ElapsedClock(clock)
        self.random = JitterSource(seed: policy.seed ?? UInt64.random(in: 0...UInt64.max))
    }

    /// One call, with all its attempts: what wraps the whole call (rather than each attempt)
    /// goes here. Every attempt of one call carries one idempotency key, so a server can
    /// tell a retry from a new write.
    func around<T: Sendable>(
        _ operation: RepositoryOperation, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        if IdempotencyKey.current != nil { return try await attempts(body) }
        return try await withIdempotencyKey(IdempotencyKey.make()) { try await attempts(body) }
    }

    /// Runs `body`, again after each failure worth retrying, waiting between attempts.
    private func attempts<T>(_ body: () async throws -> T) async throws -> T {
        var retry = 0
        while true {
            do {
                return try await body()
            } catch {
                retry += 1
                guard retry < policy.maxAttempts, !(error is CancellationError), !Task.isCancelled,
                    policy.shouldRetry(error)
                else { throw error }
                var wait = random.delay(policy, beforeRetry: retry)
                if let retryAfter = (error as? RepositoryError)?.retryAfter {
                    guard retryAfter <= policy.maxDelay else { throw error }
                    wait = max(wait, retryAfter)
                }
                try await clock.sleep(wait)
            }
        }
    }
}

extension RetryingRepository: InvalidatableRepository where Base: InvalidatableRepository {
    /// Forwards to ``base``.
    public func invalidate(ids: [ID]) async { await base.invalidate(ids: ids) }
    /// Forwards to ``base``.
    public func invalidateAll() async { await base.invalidateAll() }
}

/// The seeded generator a ``RetryingRepository`` draws its jitter from, shared by its copies.
final class JitterSource: Sendable {
    private let generator: Mutex<SeededRandomNumberGenerator>

    init(seed: UInt64) {
        generator = Mutex(SeededRandomNumberGenerator(seed: seed))
    }

    func delay(_ policy: RetryPolicy, beforeRetry retry: Int) -> Duration {
        generator.withLock { policy.delay(beforeRetry: retry, using: &$0) }
    }
}
