import Synchronization

/// The task that relays the changes an ``ObservedRepository`` follows (see
/// ``ObservedRepository/init(_:following:)``), owned by the repository and its copies: when
/// the last of them is released, the task is cancelled.
final class ChangeRelay: Sendable {
    /// The error that ended the followed changes, once they threw.
    let failure = Failure()
    private let task = Mutex<Task<Void, Never>?>(nil)

    /// Where a followed sequence's error is kept, for the value streams to throw.
    final class Failure: Sendable {
        private let error = Mutex<(any Error)?>(nil)

        func record(_ error: any Error) { self.error.withLock { $0 = error } }

        /// Throws the recorded error, if any.
        func check() throws {
            if let error = error.withLock({ $0 }) { throw error }
        }
    }

    /// Starts `body`, which must not hold this relay (its release is what cancels the task).
    func start(_ body: @escaping @Sendable () async -> Void) {
        task.withLock { $0 = Task(operation: body) }
    }

    deinit {
        task.withLock { $0?.cancel() }
    }
}
