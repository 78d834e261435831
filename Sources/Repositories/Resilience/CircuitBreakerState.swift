/// Where a ``CircuitBreakerRepository`` stands.
public enum CircuitBreakerState: String, Sendable, Hashable, CustomStringConvertible {
    /// Calls pass through and their outcomes are counted.
    case closed
    /// Calls are refused with ``RepositoryError/Code/circuitOpen`` until the break ends.
    case open
    /// The break is over: the next call goes through as a trial; a success closes the
    /// circuit, a failure opens it again. Other calls are refused while the trial runs.
    case halfOpen

    /// The state's name.
    public var description: String { rawValue }
}
