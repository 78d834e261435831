/// When a ``CircuitBreakerRepository`` opens, and for how long.
///
/// ```swift
/// let products = api.circuitBreaker(.default)
/// let touchy = api.circuitBreaker(
///     CircuitBreakerPolicy(failureRatio: 0.25, minimumCalls: 4, windowSize: 8, breakDuration: .seconds(60)))
/// ```
///
/// The breaker keeps the outcomes of the last ``windowSize`` calls. Once it holds at least
/// ``minimumCalls`` of them and the share of failures reaches ``failureRatio``, it opens
/// for ``breakDuration``. Only errors ``isFailure`` accepts count as failures; any other
/// outcome counts as a success, because the source answered.
public struct CircuitBreakerPolicy: Sendable {
    /// The share of failures among the recent calls that opens the circuit, in `0...1`.
    public var failureRatio: Double
    /// How many recent calls the window must hold before the ratio is judged.
    public var minimumCalls: Int
    /// How many recent calls the window holds.
    public var windowSize: Int
    /// How long the circuit stays open before it lets one trial call through.
    public var breakDuration: Duration
    /// Whether an error counts as a failure of the source.
    public var isFailure: @Sendable (any Error) -> Bool

    /// Creates a policy.
    ///
    /// - Precondition: `failureRatio` is in `0...1`, `minimumCalls` is at least 1 and at most
    ///   `windowSize`, and `breakDuration` is not negative.
    public init(
        failureRatio: Double = 0.5,
        minimumCalls: Int = 10,
        windowSize: Int = 20,
        breakDuration: Duration = .seconds(30),
        isFailure: @escaping @Sendable (any Error) -> Bool = CircuitBreakerPolicy.isSourceFailure
    ) {
        precondition((0...1).contains(failureRatio), "CircuitBreakerPolicy needs a failureRatio in 0...1")
        precondition(
            minimumCalls >= 1 && minimumCalls <= windowSize,
            "CircuitBreakerPolicy needs 1 ≤ minimumCalls ≤ windowSize, got \(minimumCalls) and \(windowSize)")
        precondition(
            breakDuration >= .zero, "CircuitBreakerPolicy needs a breakDuration that is not negative")
        self.failureRatio = failureRatio
        self.minimumCalls = minimumCalls
        self.windowSize = windowSize
        self.breakDuration = breakDuration
        self.isFailure = isFailure
    }

    /// Opens at half of the last 20 calls failing (at least 10 calls), for 30 seconds.
    public static var `default`: CircuitBreakerPolicy { CircuitBreakerPolicy() }

    /// Whether `error` says the source is unwell: a ``RepositoryError`` that is
    /// ``RepositoryError/Code/unavailable``, ``RepositoryError/Code/timedOut`` or
    /// ``RepositoryError/Code/locked``, or an error that is not a `RepositoryError` at all.
    /// Answers such as `notFound`, `rejected` or `conflict` are not failures: the source
    /// answered. `CancellationError` is never a failure.
    public static func isSourceFailure(_ error: any Error) -> Bool {
        if error is CancellationError { return false }
        guard let error = error as? RepositoryError else { return true }
        return [.unavailable, .timedOut, .locked].contains(error.code)
    }
}
