import Foundation

/// When and how long a ``RetryingRepository`` waits before trying a failed call again:
/// exponential backoff with full jitter, capped, for the errors a predicate accepts.
///
/// ```swift
/// let products = api.retrying(.default)      // 3 attempts, 0.2 s doubling, full jitter, ≤ 10 s
/// let patient = api.retrying(RetryPolicy(maxAttempts: 6, baseDelay: .seconds(1), maxDelay: .seconds(30)))
/// ```
///
/// The wait before retry *n* (1 for the first retry) is drawn uniformly from
/// `0...min(maxDelay, baseDelay × multiplier^(n−1))` ("full jitter", which spreads the
/// retries of many clients apart), or is that ceiling itself with ``Jitter-swift.enum/none``.
/// Draws come from a ``SeededRandomNumberGenerator``, so a ``seed`` replays a schedule
/// exactly.
///
/// By default only transient failures are retried (``isTransient(_:)``:
/// ``RepositoryError/Code/unavailable``, ``RepositoryError/Code/timedOut`` and
/// ``RepositoryError/Code/locked``). Retrying a write is safe, because `save` is an
/// upsert, a batch is all or nothing and deleting an absent ID succeeds.
public struct RetryPolicy: Sendable {
    /// How a wait is spread below its ceiling.
    public enum Jitter: Sendable, Hashable {
        /// Uniformly between zero and the ceiling.
        case full
        /// Exactly the ceiling: a plain exponential backoff.
        case none
    }

    /// The most attempts made, the first included; 1 means never retry.
    public var maxAttempts: Int
    /// The ceiling of the wait before the first retry.
    public var baseDelay: Duration
    /// How much the ceiling grows with each retry.
    public var multiplier: Double
    /// The largest wait; also the longest `retryAfter` a failure may ask for and still be retried.
    public var maxDelay: Duration
    /// How the wait is drawn below its ceiling.
    public var jitter: Jitter
    /// The seed of the jitter's generator, or `nil` for a fresh seed per repository.
    public var seed: UInt64?
    /// Whether a failure is worth another attempt. `CancellationError`, and any failure
    /// while the task is cancelled, is never retried whatever this says.
    public var shouldRetry: @Sendable (any Error) -> Bool

    /// Creates a policy.
    ///
    /// - Precondition: `maxAttempts` is at least 1, `multiplier` at least 1, and the delays
    ///   are not negative.
    public init(
        maxAttempts: Int = 3,
        baseDelay: Duration = .milliseconds(200),
        multiplier: Double = 2,
        maxDelay: Duration = .seconds(10),
        jitter: Jitter = .full,
        seed: UInt64? = nil,
        shouldRetry: @escaping @Sendable (any Error) -> Bool = RetryPolicy.isTransient
    ) {
        precondition(maxAttempts >= 1, "RetryPolicy needs maxAttempts of at least 1, got \(maxAttempts)")
        precondition(multiplier >= 1, "RetryPolicy needs a multiplier of at least 1, got \(multiplier)")
        precondition(
            baseDelay >= .zero && maxDelay >= .zero, "RetryPolicy delays cannot be negative")
        self.maxAttempts = maxAttempts
        self.baseDelay = baseDelay
        self.multiplier = multiplier
        self.maxDelay = maxDelay
        self.jitter = jitter
        self.seed = seed
        self.shouldRetry = shouldRetry
    }

    /// Three attempts, waits of up to 0.2 s then 0.4 s (full jitter), at most 10 s, transient
    /// errors only.
    public static var `default`: RetryPolicy { RetryPolicy() }

    /// One attempt: never retry.
    public static var never: RetryPolicy { RetryPolicy(maxAttempts: 1) }

    /// Whether `error` is a ``RepositoryError`` that may go away by itself:
    /// ``RepositoryError/Code/unavailable``, ``RepositoryError/Code/timedOut`` or
    /// ``RepositoryError/Code/locked``.
    public static func isTransient(_ error: any Error) -> Bool {
        guard let error = error as? RepositoryError else { return false }
        return [.unavailable, .timedOut, .locked].contains(error.code)
    }

    /// The ceiling of the wait before retry number `retry` (1 for the first retry):
    /// `min(maxDelay, baseDelay × multiplier^(retry−1))`.
    public func delayCeiling(beforeRetry retry: Int) -> Duration {
        let exponent = Double(max(0, retry - 1))
        let seconds = baseDelay.timeInterval * pow(multiplier, exponent)
        guard seconds.isFinite, seconds < maxDelay.timeInterval else { return maxDelay }
        return Duration(timeInterval: seconds)
    }

    /// The wait before retry number `retry`, drawn from `generator` as ``jitter`` says.
    ///
    /// A ``RetryingRepository`` draws exactly one value from its generator per retry, in
    /// this way, so a test can compute the schedule a seed gives.
    public func delay(beforeRetry retry: Int, using generator: inout some RandomNumberGenerator) -> Duration {
        let ceiling = delayCeiling(beforeRetry: retry)
        let draw = generator.next()
        guard jitter == .full else { return ceiling }
        let nanoseconds = ceiling.timeInterval * 1e9
        guard nanoseconds >= 1 else { return .zero }
        // 53 random bits give a uniform fraction in [0, 1]; rounding keeps the ceiling reachable.
        let fraction = Double(draw >> 11) / Double((1 << 53) - 1)
        return .nanoseconds(Int64((nanoseconds * fraction).rounded()))
    }
}
