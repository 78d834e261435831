extension Repository {
    /// This repository behind a circuit breaker that refuses calls with
    /// ``RepositoryError/Code/circuitOpen`` while the source keeps failing.
    ///
    /// See ``CircuitBreakerRepository`` for the states and ``CircuitBreakerPolicy`` for
    /// when it opens.
    public func circuitBreaker(
        _ policy: CircuitBreakerPolicy = .default, clock: some Clock<Duration> = ContinuousClock()
    ) -> CircuitBreakerRepository<Self> {
        CircuitBreakerRepository(self, policy: policy, clock: clock)
    }
}
