import Synchronization

/// A clock whose time moves only when a test says so.
///
/// Hand it to a time-based decorator (a TTL, a retry's backoff, a timeout, a circuit
/// breaker's break), then move time with ``advance(by:)``: sleepers whose deadline is
/// reached wake in deadline order, and no test waits in real time.
///
/// ```swift
/// let clock = ManualClock()
/// let task = Task { try await clock.sleep(for: .seconds(5)) }
/// await clock.waitForSleepers(count: 1)
/// await clock.advance(by: .seconds(5))   // the task wakes now
/// ```
///
/// A sleeping task that is cancelled throws `CancellationError` at once.
public final class ManualClock: Clock, Sendable {
    /// A point in the clock's time: the duration since the clock was made.
    public struct Instant: InstantProtocol, Sendable, CustomStringConvertible {
        /// The time since the clock's start.
        public var offset: Duration

        /// Creates the instant `offset` after the clock's start.
        public init(offset: Duration) {
            self.offset = offset
        }

        /// The instant `duration` later.
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        /// The duration from this instant to `other`.
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        /// Orders instants by time.
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
        /// The offset, such as `5.0 seconds`.
        public var description: String { "\(offset)" }
    }

    private struct Sleeper {
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Instant
        var nextToken = 0
        var sleepers: [Int: Sleeper] = [:]
        var cancelledBeforeSleeping: Set<Int> = []
    }

    private let state: Mutex<State>

    /// Creates a clock whose time starts at `now` (zero by default).
    public init(now: Instant = Instant(offset: .zero)) {
        state = Mutex(State(now: now))
    }

    /// The clock's current time.
    public var now: Instant { state.withLock { $0.now } }

    /// Zero: the clock's time moves only by ``advance(by:)``.
    public var minimumResolution: Duration { .zero }

    /// How many tasks are sleeping on the clock.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Suspends until the clock reaches `deadline`; returns at once if it has.
    ///
    /// - Throws: `CancellationError` when the task is cancelled before the deadline.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let token = state.withLock { state in
            defer { state.nextToken += 1 }
            return state.nextToken
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Void, any Error>? = state.withLock { state in
                    if state.cancelledBeforeSleeping.remove(token) != nil {
                        return .failure(CancellationError())
                    }
                    if deadline <= state.now { return .success(()) }
                    state.sleepers[token] = Sleeper(deadline: deadline, continuation: continuation)
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let sleeper = state.withLock { state in
                guard let sleeper = state.sleepers.removeValue(forKey: token) else {
                    state.cancelledBeforeSleeping.insert(token)
                    return Sleeper?.none
                }
                return sleeper
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward by `duration`, waking each sleeper whose deadline is reached, in
    /// deadline order (sleepers with one deadline in the order they began to sleep).
    ///
    /// Each woken sleeper is given a chance to run (a few scheduler yields) before time
    /// moves past its deadline, so a sleeper that goes straight back to sleep within the
    /// advanced span is woken again. A sleeper that first waits on work off Swift's
    /// cooperative pool (a dispatch queue, a file) may not be back in time: advance such code
    /// one deadline at a time, with ``waitForSleepers(count:timeout:fileID:filePath:line:column:)``
    /// before each step.
    public func advance(by duration: Duration) async {
        await advance(to: now.advanced(by: duration))
    }

    /// Moves time forward to `instant`, waking sleepers as ``advance(by:)`` does; does nothing
    /// if the clock is already past it.
    public func advance(to instant: Instant) async {
        while true {
            let due: [Sleeper] = state.withLock { state in
                let reached = state.sleepers.filter { $0.value.deadline <= instant }
                guard let earliest = reached.values.map(\.deadline).min() else {
                    if state.now < instant { state.now = instant }
                    return []
                }
                if state.now < earliest { state.now = earliest }
                let tokens = reached.filter { $0.value.deadline == earliest }.keys.sorted()
                return tokens.compactMap { state.sleepers.removeValue(forKey: $0) }
            }
            if due.isEmpty { return }
            for sleeper in due { sleeper.continuation.resume() }
            await Self.letOthersRun()
        }
    }

    /// Suspends until at least `count` tasks sleep on the clock, so a test can advance
    /// time knowing the code under test has reached its sleep.
    ///
    /// If fewer than `count` are asleep after `timeout` of real time, it reports a test
    /// failure at the caller's line and returns, so a test fails instead of hanging. It
    /// checks between short real sleeps, so the wait holds no thread the code under test
    /// needs: a whole test suite on two cores once left that code waiting more than 30 s.
    public func waitForSleepers(
        count: Int, timeout: Duration = .seconds(120),
        fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
        column: UInt = #column
    ) async {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while sleeperCount < count {
            if ContinuousClock.now >= deadline {
                reportTestFailure(
                    "ManualClock.waitForSleepers(count: \(count)) gave up after \(timeout): \(sleeperCount) task(s) asleep",
                    at: CallerLocation(fileID: fileID, filePath: filePath, line: line, column: column))
                return
            }
            await Task.yield()
            guard sleeperCount < count else { return }
            do {
                try await Task.sleep(for: .milliseconds(1))
            } catch {
                return  // the test was cancelled: it is ending anyway
            }
        }
    }

    /// Yields enough times for just-resumed tasks to reach their next suspension point.
    static func letOthersRun() async {
        for _ in 0..<20 { await Task.yield() }
    }
}
