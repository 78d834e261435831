import Synchronization

/// The state machine of a ``CircuitBreakerRepository``, shared by its copies.
final class CircuitBreaker: Sendable {
    enum Admission {
        case call(isTrial: Bool)
        case refuse(retryAfter: Duration?)
    }

    enum Outcome {
        case success
        case failure
        /// Cancelled: says nothing about the source.
        case abandoned
    }

    private enum Phase {
        case closed
        case open(until: Duration)
        case halfOpen(trialInFlight: Bool)
    }

    private struct State {
        var phase = Phase.closed
        /// The recent outcomes, `true` for a failure, oldest first.
        var window: [Bool] = []
        var failures = 0
        /// Counts openings, so a call admitted before one does not count after it.
        var generation = 0

        mutating func close() {
            phase = .closed
            window.removeAll()
            failures = 0
            generation += 1
        }

        mutating func open(until deadline: Duration) {
            phase = .open(until: deadline)
            window.removeAll()
            failures = 0
            generation += 1
        }
    }

    let policy: CircuitBreakerPolicy
    private let clock: ElapsedClock
    private let state = Mutex(State())

    init(policy: CircuitBreakerPolicy, clock: ElapsedClock) {
        self.policy = policy
        self.clock = clock
    }

    var current: CircuitBreakerState {
        let now = clock.now()
        return state.withLock { state in
            switch state.phase {
            case .closed: .closed
            case .open(let until): now >= until ? .halfOpen : .open
            case .halfOpen: .halfOpen
            }
        }
    }

    /// Decides whether a call may go through; returns the generation to report it under.
    func admit() -> (Admission, generation: Int) {
        let now = clock.now()
        return state.withLock { state in
            switch state.phase {
            case .closed:
                return (.call(isTrial: false), state.generation)
            case .open(let until) where now < until:
                return (.refuse(retryAfter: until - now), state.generation)
            case .open, .halfOpen(trialInFlight: false):
                state.phase = .halfOpen(trialInFlight: true)
                return (.call(isTrial: true), state.generation)
            case .halfOpen(trialInFlight: true):
                return (.refuse(retryAfter: nil), state.generation)
            }
        }
    }

    /// Records how an admitted call ended.
    func record(_ outcome: Outcome, isTrial: Bool, generation: Int) {
        let now = clock.now()
        state.withLock { state in
            guard state.generation == generation else { return }
            if isTrial {
                switch outcome {
                case .success: state.close()
                case .failure: state.open(until: now + policy.breakDuration)
                case .abandoned: state.phase = .halfOpen(trialInFlight: false)
                }
                return
            }
            guard case .closed = state.phase, outcome != .abandoned else { return }
            state.window.append(outcome == .failure)
            if outcome == .failure { state.failures += 1 }
            if state.window.count > policy.windowSize, state.window.removeFirst() { state.failures -= 1 }
            let ratio = Double(state.failures) / Double(state.window.count)
            if state.window.count >= policy.minimumCalls, state.failures > 0, ratio >= policy.failureRatio {
                state.open(until: now + policy.breakDuration)
            }
        }
    }
}

extension CircuitBreaker.Outcome: Equatable {}
