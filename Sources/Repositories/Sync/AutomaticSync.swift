/// When an ``OfflineFirstRepository`` syncs by itself.
///
/// ```swift
/// let notes = api.offlineFirst(
///     local: file, outbox: outbox, conflicts: .lastWriterWins,
///     automaticSync: AutomaticSync(every: .seconds(300), backoff: .default))
/// ```
///
/// A sync starts after every write. One that fails because the remote is unreachable or
/// busy is tried again after the `backoff` policy's delays, which grow to its `maxDelay`
/// and stay there, for as long as it takes (its `maxAttempts` does not apply: the changes
/// wait for the remote, however long it is away), so they go out within about `maxDelay`
/// of the remote answering again. ``OfflineFirstRepository/stopAutomaticSync()`` ends it. With an `interval`, a sync
/// also starts that long after the last one ended, which brings other devices' changes in.
/// One sync runs at a time. All waiting is on `clock`, so tests drive it with a
/// `ManualClock`.
public struct AutomaticSync: Sendable {
    /// How long after a sync ended the next one starts by itself; `nil`: only after writes
    /// and failures.
    public var interval: Duration?
    /// The delays between tries after a transient failure; tries go on until one works.
    public var backoff: RetryPolicy
    let sleep: @Sendable (Duration) async throws -> Void

    /// Syncs after every write, retries failures with `backoff`, and also every `interval`
    /// when one is given, waiting on `clock`.
    public init(
        every interval: Duration? = nil, backoff: RetryPolicy = .default,
        clock: some Clock<Duration> = ContinuousClock()
    ) {
        self.interval = interval
        self.backoff = backoff
        self.sleep = { try await clock.sleep(for: $0) }
    }

    /// After every write, with the default backoff, on the continuous clock.
    public static var afterWrites: AutomaticSync { AutomaticSync() }
}
