import Foundation

/// The lock one sync of a shared outbox holds while it runs, so one instance syncs at a time
/// in any number of processes: an exclusive lock on a file beside the outbox (an
/// ``OutboxLock``), taken for the sync and let go after it. The system lets go of it when a
/// process ends, however it ends, so a killed sync never holds it.
package struct OutboxSyncLock: Sendable {
    /// The lock file.
    package let url: URL
    /// How long a sync waits for another instance's sync before throwing `locked`.
    package let wait: Duration
    /// The outbox, as the `locked` error names it.
    package let outbox: String

    /// The lock of the file at `url`, taken waiting up to `wait`, for the outbox `outbox`.
    package init(url: URL, wait: Duration, holding outbox: String) {
        self.url = url
        self.wait = wait
        self.outbox = outbox
    }

    /// Runs `body` holding the lock.
    ///
    /// - Throws: `locked` naming the outbox when another instance syncs past the wait;
    ///   `CancellationError` when the task is cancelled while it waits; what `body` throws.
    func holding<T>(_ body: () async throws -> T) async throws -> T {
        let lock = try await OutboxLock(url: url, lockWait: wait, holding: outbox)
        defer { lock.release() }
        return try await body()
    }
}
