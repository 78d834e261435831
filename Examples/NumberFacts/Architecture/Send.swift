/// What an effect uses to send actions back to its ``Store``.
///
/// An effect that was cancelled cannot send: its late answer is dropped, so a cancelled
/// request never overwrites the state a newer one produced.
struct Send<Action: Sendable>: Sendable {
    private let deliver: @MainActor @Sendable (Action) -> Void

    /// A `Send` that hands each action to `deliver`.
    init(_ deliver: @escaping @MainActor @Sendable (Action) -> Void) {
        self.deliver = deliver
    }

    /// Sends `action` to the store, unless the effect's task has been cancelled.
    @MainActor func callAsFunction(_ action: Action) {
        guard !Task.isCancelled else { return }
        deliver(action)
    }
}
