import Foundation

/// A clock reduced to what decorators need: the time elapsed since it was made, and a
/// sleep. It hides the clock's instant type, so a decorator stays generic over its
/// repositories alone while any `Clock<Duration>` (`ContinuousClock`, a test's
/// `ManualClock`) drives it.
struct ElapsedClock: Sendable {
    /// The time since the clock was made.
    let now: @Sendable () -> Duration
    /// Sleeps for a duration; throws `CancellationError` when cancelled.
    let sleep: @Sendable (Duration) async throws -> Void

    init<C: Clock<Duration>>(_ clock: C) {
        let start = clock.now
        now = { start.duration(to: clock.now) }
        sleep = { try await clock.sleep(for: $0) }
    }
}

extension Duration {
    /// The duration in seconds, as `Foundation` counts time.
    var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }

    /// A duration of `interval` seconds.
    init(timeInterval interval: TimeInterval) {
        self = .nanoseconds(Int64((interval * 1e9).rounded()))
    }
}
