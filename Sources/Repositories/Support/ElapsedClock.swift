import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A clock reduced to what decorators need: the time elapsed since it was made, and a
/// sleep. It hides the clock's instant type, so a decorator stays generic over its
/// repositories alone while any `Clock<Duration>` (`ContinuousClock`, a test's
/// `ManualClock`) drives it.
struct ElapsedClock: Sendable {
    /// The time since the clock was made.
    let now: @Sendable () -> Duration
    /// The time since the clock was made, in seconds: what a cache's freshness check reads
    /// on every hit (see ``init(_:)`` for why it is not `now().timeInterval`).
    let seconds: @Sendable () -> Double
    /// Sleeps for a duration; throws `CancellationError` when cancelled.
    let sleep: @Sendable (Duration) async throws -> Void

    init<C: Clock<Duration>>(_ clock: C) {
        sleep = { try await clock.sleep(for: $0) }
        // This initializer is not specialized, so a closure over `C` reaches the clock
        // through its witness table and boxes each instant; the default clock gets closures
        // over the concrete type.
        if clock is ContinuousClock {
            let start = ContinuousClock.now
            now = { start.duration(to: .now) }
        } else {
            let start = clock.now
            now = { start.duration(to: clock.now) }
        }
        // A cache hit reads `seconds` every time, and turning a `Duration` into seconds
        // divides 128-bit integers, which costs a third of the hit's lookup. So the default
        // clock's time source (monotonic, running while the machine sleeps) is read
        // directly. Only differences of readings are used, so its epoch does not matter.
        #if canImport(Darwin) || canImport(Glibc) || canImport(Musl)
            if clock is ContinuousClock {
                let start = ContinuousSource.seconds()
                seconds = { ContinuousSource.seconds() - start }
                return
            }
        #endif
        let now = now
        seconds = { now().timeInterval }
    }
}

#if canImport(Darwin) || canImport(Glibc) || canImport(Musl)
    /// The time source behind `ContinuousClock`, read as seconds.
    private enum ContinuousSource {
        // The sources the Swift runtime reads for `ContinuousClock`.
        #if canImport(Darwin)
            static var source: clockid_t { CLOCK_MONOTONIC_RAW }
        #else
            static var source: clockid_t { CLOCK_BOOTTIME }
        #endif

        /// Seconds since an unspecified start.
        static func seconds() -> Double {
            var time = timespec()
            // Fails only for an unknown clock ID, and these exist on every supported system.
            let result = clock_gettime(source, &time)
            assert(result == 0, "clock_gettime failed")
            return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
        }
    }
#endif

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
