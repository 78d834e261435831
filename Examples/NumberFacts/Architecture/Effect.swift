/// The outside work a ``Reducer`` asks for: nothing, an asynchronous job that sends actions
/// back, or the cancellation of a running job.
///
/// ```swift
/// return .run { [number = state.count] send in
///     await send(.response(await fetchFact(number)))
/// }
/// .cancellable(id: CancelID.fact, cancelInFlight: true)
/// ```
struct Effect<Action: Sendable>: Sendable {
    /// What the effect does when the ``Store`` runs it.
    enum Operation: Sendable {
        /// Nothing.
        case none
        /// An asynchronous job; it reports back through ``Send``. It cannot throw, so every
        /// failure must become an action the state can show.
        case run(@Sendable (Send<Action>) async -> Void)
        /// Cancels the running job registered under the ID.
        case cancel(EffectID)
    }

    /// What the effect does.
    let operation: Operation
    /// The ID a running job is registered under, so it can be cancelled.
    let id: EffectID?
    /// Whether starting this job first cancels the job already running under ``id``.
    let cancelsInFlight: Bool

    /// No work: the action only changed the state.
    static var none: Effect { Effect(operation: .none, id: nil, cancelsInFlight: false) }

    /// Runs `job` in a new task; it sends its results as actions.
    static func run(_ job: @escaping @Sendable (Send<Action>) async -> Void) -> Effect {
        Effect(operation: .run(job), id: nil, cancelsInFlight: false)
    }

    /// Cancels the job running under `id`, if any; its late actions are dropped.
    static func cancel(id: some Hashable & Sendable) -> Effect {
        Effect(operation: .cancel(EffectID(id)), id: nil, cancelsInFlight: false)
    }

    /// This effect, registered under `id` so that ``cancel(id:)`` can stop it.
    ///
    /// - Parameter cancelInFlight: first cancel the job already running under `id`, so only
    ///   the newest one can answer.
    func cancellable(id: some Hashable & Sendable, cancelInFlight: Bool = false) -> Effect {
        Effect(operation: operation, id: EffectID(id), cancelsInFlight: cancelInFlight)
    }
}
