import Observation

/// Holds a feature's state, applies the actions sent to it through the feature's
/// ``Reducer``, and runs the effects the reducer returns: the view model of the article's
/// view, which reads `store.state` and calls `store.send(_:)`.
///
/// An effect registered with `.cancellable(id:cancelInFlight:)` is cancelled when a later
/// effect with the same ID starts (if it asks to) or when `.cancel(id:)` is returned; a
/// cancelled effect's actions are dropped (see ``Send``).
@MainActor @Observable
final class Store<Feature: Reducer> {
    /// One action the store applied: the action, where it came from, and the state before
    /// and after it.
    struct Change {
        /// The action applied.
        let action: Feature.Action
        /// `true` when an effect sent the action, `false` when ``Store/send(_:)`` did.
        let isFromEffect: Bool
        /// The state before the action.
        let before: Feature.State
        /// The state after the action.
        let after: Feature.State
    }

    private struct RunningEffect {
        let task: Task<Void, Never>
        let id: EffectID?
    }

    /// The current state; only actions change it.
    private(set) var state: Feature.State

    @ObservationIgnored private let feature: Feature
    @ObservationIgnored private let onChange: (@MainActor (Change) -> Void)?
    @ObservationIgnored private var running: [Int: RunningEffect] = [:]
    @ObservationIgnored private var nextEffect = 0

    /// A store starting at `initialState`, run by `feature`.
    ///
    /// - Parameter onChange: told about every applied action, in order, with the state
    ///   before and after: for logging, and for a test store.
    init(
        initialState: Feature.State, feature: Feature, onChange: (@MainActor (Change) -> Void)? = nil
    ) {
        self.state = initialState
        self.feature = feature
        self.onChange = onChange
    }

    /// How many effects are still running, cancelled ones included until they return.
    var runningEffectCount: Int { running.count }

    /// Applies `action` and starts the effect it returns.
    ///
    /// - Returns: a handle on that effect: `await store.send(.faktSorash).finish()`
    ///   returns once the effect has sent its answer.
    @discardableResult
    func send(_ action: Feature.Action) -> StoreTask {
        apply(action, isFromEffect: false)
    }

    private func apply(_ action: Feature.Action, isFromEffect: Bool) -> StoreTask {
        let before = state
        let effect = feature.reduce(into: &state, action: action)
        onChange?(Change(action: action, isFromEffect: isFromEffect, before: before, after: state))
        return start(effect)
    }

    private func start(_ effect: Effect<Feature.Action>) -> StoreTask {
        switch effect.operation {
        case .none:
            return StoreTask(nil)
        case .cancel(let id):
            cancel(id)
            return StoreTask(nil)
        case .run(let job):
            if let id = effect.id, effect.cancelsInFlight { cancel(id) }
            let number = nextEffect
            nextEffect += 1
            let send = Send<Feature.Action> { [weak self] action in
                _ = self?.apply(action, isFromEffect: true)
            }
            // The task starts after this method returns (both run on the main actor), so the
            // effect is registered before it can finish.
            let task = Task { [weak self] in
                await job(send)
                self?.running[number] = nil
            }
            running[number] = RunningEffect(task: task, id: effect.id)
            return StoreTask(task)
        }
    }

    private func cancel(_ id: EffectID) {
        for effect in running.values where effect.id == id {
            effect.task.cancel()
        }
    }
}
