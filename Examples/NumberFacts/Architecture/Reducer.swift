/// A feature's logic, in the style of The Composable Architecture: a pure function that
/// applies an action to the state and says what outside work, if any, should follow.
///
/// `reduce(into:action:)` changes nothing but `state`: no network, no clock, no globals. It
/// describes the work as an ``Effect``, which the ``Store`` runs; that is what makes every
/// state change testable step by step.
protocol Reducer<State, Action> {
    /// Everything the feature's screen shows.
    associatedtype State: Equatable
    /// Everything that can happen: the user's taps and the effects' answers.
    associatedtype Action: Sendable

    /// Applies `action` to `state` and returns the work to do next (``Effect/none`` if none).
    func reduce(into state: inout State, action: Action) -> Effect<Action>
}
