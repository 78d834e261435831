extension Repository {
    /// This repository, reporting each operation's duration and outcome to `record`.
    ///
    /// - Parameters:
    ///   - label: carried by every event; the entity's type name when `nil`.
    ///   - clock: times the calls (pass a `ManualClock` in tests).
    ///   - record: called once per operation after it returned or threw.
    public func instrumented(
        label: String? = nil, clock: some Clock<Duration> = ContinuousClock(),
        _ record: @escaping @Sendable (RepositoryEvent) -> Void
    ) -> InstrumentedRepository<Self> {
        InstrumentedRepository(self, label: label, clock: clock, record: record)
    }
}
