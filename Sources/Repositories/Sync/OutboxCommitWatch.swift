import Synchronization

/// Tells the streams of an outbox that other instances share (in this process or others)
/// when another connection committed to its file: one task, running while a stream listens,
/// reads a number the storage changes on every commit by another connection
/// (``OutboxJointStorage/othersCommits()``) every ``interval`` and signals when it changed.
final class OutboxCommitWatch: Sendable {
    /// How often the task reads the number while a stream listens.
    static var interval: Duration { .milliseconds(50) }

    private let running = Mutex(false)

    /// Starts the task unless it runs. The task signals once at its start (so a commit made
    /// before it read the number first is not missed), then after every change of the number
    /// `read` gives, and ends when `isWanted` says no stream listens, or when `read` throws
    /// (the outbox closed), after one last signal so the streams read and end too.
    ///
    /// Call it after subscribing: a task that finds no stream ends, and the check and the end
    /// happen under one lock, so a stream that subscribed first is never left without one.
    func keepWatching(
        while isWanted: @escaping @Sendable () -> Bool, read: @escaping @Sendable () async throws -> Int64,
        signal: @escaping @Sendable () -> Void
    ) {
        let starts = running.withLock { running in
            defer { running = true }
            return !running
        }
        guard starts else { return }
        Task { [self] in
            var last: Int64?
            while true {
                let goesOn = running.withLock { running in
                    running = isWanted()
                    return running
                }
                guard goesOn else { return }
                do {
                    let now = try await read()
                    if now != last {
                        last = now
                        signal()
                    }
                    try await Task.sleep(for: Self.interval)
                } catch {
                    running.withLock { $0 = false }
                    signal()
                    return
                }
            }
        }
    }
}
