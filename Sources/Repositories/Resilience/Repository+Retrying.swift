extension Repository {
    /// This repository, trying failed calls again as `policy` says, waiting on `clock`.
    ///
    /// See ``RetryingRepository`` for what is retried, how long it waits, and how
    /// cancellation ends it.
    public func retrying(
        _ policy: RetryPolicy = .default, clock: some Clock<Duration> = ContinuousClock()
    ) -> RetryingRepository<Self> {
        RetryingRepository(self, policy: policy, clock: clock)
    }
}
