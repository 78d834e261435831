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
///
/// With a `reachability` signal (``NetworkReachability``; on Apple platforms the path
/// monitor by default), a write made while the network is down starts no sync, a sync that
/// fails while it is down is not retried on a timer, and when the network returns a sync
/// starts at once; the backoff then only paces retries to a remote that is down while the
/// network is up.
public struct AutomaticSync: Sendable {
    /// How long after a sync ended the next one starts by itself; `nil`: only after writes
    /// and failures.
    public var interval: Duration?
    /// The delays between tries after a transient failure; tries go on until one works.
    public var backoff: RetryPolicy
    /// Whether the network is up; `nil`: assume it is, and retry by the backoff alone.
    public var reachability: (any NetworkReachability)?
    let sleep: @Sendable (Duration) async throws -> Void

    /// Syncs after every write, retries failures with `backoff`, also every `interval` when
    /// one is given, and when `reachability` says the network returned; waits on `clock`.
    public init(
        every interval: Duration? = nil, backoff: RetryPolicy = .default,
        reachability: (any NetworkReachability)? = AutomaticSync.platformReachability,
        clock: some Clock<Duration> = ContinuousClock()
    ) {
        self.interval = interval
        self.backoff = backoff
        self.reachability = reachability
        self.sleep = { try await clock.sleep(for: $0) }
    }

    /// The platform's reachability signal: the path monitor where the Network framework
    /// exists (Apple platforms), else `nil`.
    public static var platformReachability: (any NetworkReachability)? {
        #if canImport(Network)
            PathMonitorReachability()
        #else
            nil
        #endif
    }

    /// After every write, with the default backoff, on the continuous clock.
    public static var afterWrites: AutomaticSync { AutomaticSync() }
}
