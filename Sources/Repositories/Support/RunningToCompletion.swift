/// Runs `body` to its end whatever becomes of the calling task, and returns what it returned:
/// cancelling the caller does not cancel `body`, and the caller still waits for it.
///
/// For work that must not stop halfway once begun. An offline-first write records its change
/// in the outbox and applies it to the local store, and stores check cancellation before each
/// call: a caller cancelled between the two would leave one side without the other, and the
/// undo, on the same cancelled task, would be refused too. `body` runs on a task of its own,
/// which inherits the caller's priority and task-local values but not its cancellation.
/// Check cancellation before calling this, where stopping is still free.
func runningToCompletion<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await Task { try await body() }.value
}
