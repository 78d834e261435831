/// A handle on the effect one action started.
struct StoreTask: Sendable {
    private let task: Task<Void, Never>?

    /// A handle on `task`; `nil` when the action started no effect.
    init(_ task: Task<Void, Never>?) {
        self.task = task
    }

    /// Returns once the effect has finished (at once when there was none).
    func finish() async {
        await task?.value
    }
}
