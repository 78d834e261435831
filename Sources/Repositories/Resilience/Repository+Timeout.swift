extension Repository {
    /// This repository with every call limited to `limit` on `clock`: a call that runs
    /// longer is cancelled and throws ``RepositoryError/Code/timedOut``.
    ///
    /// See ``TimeoutRepository`` for what happens to a write that timed out.
    public func timeout(
        _ limit: Duration, clock: some Clock<Duration> = ContinuousClock()
    ) -> TimeoutRepository<Self> {
        TimeoutRepository(self, limit: limit, clock: clock)
    }
}
