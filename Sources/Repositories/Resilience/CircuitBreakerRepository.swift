/// A repository that stops calling a failing source for a while, answering
/// ``RepositoryError/Code/circuitOpen`` at once instead, then lets one trial call through.
///
/// ```swift
/// let products = api.circuitBreaker(.default).fallback(to: file)   // serves the file while open
/// ```
///
/// The states, one at a time (see ``CircuitBreakerPolicy`` for the numbers):
///
/// - **closed**: calls go through; their outcomes fill a window of recent calls. When the
///   failures in it reach the policy's ratio (with enough calls), the circuit opens.
/// - **open**: every call throws ``RepositoryError/Code/circuitOpen`` without reaching the
///   source, with ``RepositoryError/retryAfter`` set to the rest of the break: a refused
///   write writes or deletes nothing.
/// - **half-open**: once the break is over, the next call goes through as a trial, while
///   others are refused with `circuitOpen`. A trial that succeeds (or fails in a way the
///   policy does not count) closes the circuit with an empty window; one that fails opens
///   it for another break; one that is cancelled lets the next call be the trial.
///
/// All operations share one circuit, since they share one source. The source's errors are
/// passed through unchanged. Time is read from the clock given (`ContinuousClock` by
/// default), so tests walk the states on a `ManualClock`.
public struct CircuitBreakerRepository<Base: Repository>: ForwardingRepository {
    /// The base's entity.
    public typealias Entity = Base.Entity
    /// The base's ID.
    public typealias ID = Base.ID

    /// The repository calls are passed to.
    public let base: Base
    private let breaker: CircuitBreaker

    /// Wraps `base`, breaking as `policy` says, reading time from `clock`.
    public init(
        _ base: Base, policy: CircuitBreakerPolicy = .default, clock: some Clock<Duration> = ContinuousClock()
    ) {
        self.base = base
        self.breaker = CircuitBreaker(policy: policy, clock: ElapsedClock(clock))
    }

    /// The policy the circuit follows.
    public var policy: CircuitBreakerPolicy { breaker.policy }

    /// Where the circuit stands now: an open circuit whose break is over reads as half-open.
    public var state: CircuitBreakerState { breaker.current }

    /// Lets one call through to the source, or refuses it, as the circuit stands.
    func around<T: Sendable>(
        _ operation: RepositoryOperation, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let (admission, generation) = breaker.admit()
        guard case .call(let isTrial) = admission else {
            if case .refuse(let retryAfter) = admission {
                throw RepositoryError.circuitOpen(retryAfter: retryAfter)
            }
            preconditionFailure("an admission is either a call or a refusal")
        }
        do {
            let result = try await body()
            breaker.record(.success, isTrial: isTrial, generation: generation)
            return result
        } catch {
            let outcome: CircuitBreaker.Outcome =
                error is CancellationError || Task.isCancelled
                ? .abandoned : breaker.policy.isFailure(error) ? .failure : .success
            breaker.record(outcome, isTrial: isTrial, generation: generation)
            throw error
        }
    }
}

extension CircuitBreakerRepository: InvalidatableRepository where Base: InvalidatableRepository {
    /// Forwards to ``base``, even while the circuit is open.
    public func invalidate(ids: [ID]) async { await base.invalidate(ids: ids) }
    /// Forwards to ``base``, even while the circuit is open.
    public func invalidateAll() async { await base.invalidateAll() }
}
