import RepositoriesTesting
import Testing

@testable import NumberFacts

/// A store for tests, in the spirit of TCA's `TestStore`: the test sends actions and says
/// exactly how each one changes the state, then receives the actions effects send back, in
/// order, each with its state change.
///
/// ```swift
/// let store = TestStore(initialState: SanagichFeature.State(), feature: feature)
/// await store.send(.oshirTugmasi) { $0.son = 1 }
/// await store.send(.faktSorash) { $0.yuklanmoqda = true }
/// await store.receive(.faktJavob(.success(fact))) {
///     $0.yuklanmoqda = false
///     $0.fakt = fact.text
/// }
/// await store.finish()
/// ```
///
/// It is exhaustive: the whole state is compared after every action, an action received
/// from an effect must be asserted before the next send, and ``finish()`` (which every test
/// must call) fails if an effect is still running or a received action was not asserted.
/// It runs the example's real ``Store``, so effects, cancellation and dropped late answers
/// are the ones the app has.
@MainActor
final class TestStore<Feature: Reducer> where Feature.Action: Equatable {
    private typealias Change = Store<Feature>.Change

    /// Collects what the store applied, until the test asserts it.
    @MainActor private final class Log {
        var sent: Change?
        var received: [Change] = []
    }

    private let store: Store<Feature>
    private let log: Log
    private let timeout: Duration
    private let createdAt: SourceLocation
    /// The state as the test has asserted it so far.
    private var state: Feature.State
    private var isFinished = false

    /// A test store starting at `initialState`, run by `feature`.
    ///
    /// - Parameter timeout: how long ``receive(_:assert:sourceLocation:)`` and ``finish()``
    ///   wait, in real time, before they report a failure instead of hanging: a guard, not a
    ///   speed limit, so generous (CI machines running the whole suite on two cores have
    ///   left an in-memory effect unscheduled for over 30 s).
    init(
        initialState: Feature.State, feature: Feature, timeout: Duration = .seconds(300),
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let log = Log()
        self.log = log
        self.timeout = timeout
        self.createdAt = sourceLocation
        self.state = initialState
        store = Store(initialState: initialState, feature: feature) { change in
            if change.isFromEffect { log.received.append(change) } else { log.sent = change }
        }
    }

    deinit {
        if !isFinished {
            reportTestFailure(
                "The test store was not finished: end the test with `await store.finish()`, which checks that every effect ended and every received action was asserted.",
                at: createdAt)
        }
    }

    /// Sends `action` and checks the state it leads to: the state before it, changed by
    /// `update`.
    ///
    /// - Returns: the effect the action started, to `await` or ignore.
    @discardableResult
    func send(
        _ action: Feature.Action, assert update: ((inout Feature.State) -> Void)? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async -> StoreTask {
        if !log.received.isEmpty {
            reportTestFailure(
                "Must handle the \(log.received.count) received action(s) before sending \(action): \(pendingActions)",
                at: sourceLocation)
            log.received.removeAll()
        }
        log.sent = nil
        let task = store.send(action)
        if let change = log.sent {
            check(change, update: update, sourceLocation: sourceLocation)
        } else {
            reportTestFailure("The store did not apply \(action)", at: sourceLocation)
        }
        return task
    }

    /// Waits for the next action an effect sent, checks that it is `expected`, and checks
    /// the state it led to: the state before it, changed by `update`.
    func receive(
        _ expected: Feature.Action, assert update: ((inout Feature.State) -> Void)? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        let arrived = await yieldWhile(timeout: timeout) {
            log.received.isEmpty && store.runningEffectCount > 0
        }
        guard !log.received.isEmpty else {
            let reason = arrived ? "no effect is running" : "none arrived within \(timeout)"
            reportTestFailure("Expected to receive \(expected), but \(reason)", at: sourceLocation)
            return
        }
        let change = log.received.removeFirst()
        if change.action != expected {
            reportTestFailure(
                "Received \(change.action), but expected \(expected)", at: sourceLocation)
        }
        check(change, update: update, sourceLocation: sourceLocation)
    }

    /// Waits for every effect to end, then fails if one is still running or if an action
    /// an effect sent was not asserted with ``receive(_:assert:sourceLocation:)``.
    func finish(sourceLocation: SourceLocation = #_sourceLocation) async {
        isFinished = true
        let ended = await yieldWhile(timeout: timeout) { store.runningEffectCount > 0 }
        if !ended {
            reportTestFailure(
                "\(store.runningEffectCount) effect(s) still running after \(timeout)",
                at: sourceLocation)
        }
        if !log.received.isEmpty {
            reportTestFailure(
                "The store received \(log.received.count) action(s) the test did not assert: \(pendingActions)",
                at: sourceLocation)
        }
    }

    private var pendingActions: String {
        log.received.map { "\($0.action)" }.joined(separator: ", ")
    }

    /// Compares the whole state after `change` with the asserted state changed by `update`,
    /// then carries on from the actual state, so one mismatch is reported once.
    private func check(
        _ change: Change, update: ((inout Feature.State) -> Void)?, sourceLocation: SourceLocation
    ) {
        var expected = state
        update?(&expected)
        if expected != change.after {
            let fields = StateDiff.fields(from: expected, to: change.after)
            let lines = fields.map { "  \($0)" }.joined(separator: "\n")
            reportTestFailure(
                "The state after \(change.action) is not the expected one (expected → actual):\n\(lines)",
                at: sourceLocation)
        }
        state = change.after
    }
}
