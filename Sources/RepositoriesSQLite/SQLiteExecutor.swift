import Dispatch

/// A serial executor backed by its own dispatch queue, so the actor that uses it runs its
/// blocking SQLite calls (fsync, busy waits) on a dispatch thread, never on one of the few
/// threads of Swift's cooperative pool.
///
/// A serial queue created this way targets an overcommitting global queue, so a call that
/// blocks for a busy timeout holds one thread without starving other work.
final class SQLiteExecutor: SerialExecutor {
    private let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Stops the program unless the caller runs on this executor's queue: a blocking SQLite
    /// call anywhere else could hold a thread of the cooperative pool.
    func preconditionOnQueue() {
        dispatchPrecondition(condition: .onQueue(queue))
    }

    /// Runs `body` on the queue and returns its result to the awaiting task.
    ///
    /// For work that must happen before the actor exists, such as opening its connection.
    func run<Result>(_ body: @escaping @Sendable () throws -> sending Result) async throws -> sending Result {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Result, any Error>) in
            queue.async {
                do {
                    continuation.resume(returning: try body())
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }
}
