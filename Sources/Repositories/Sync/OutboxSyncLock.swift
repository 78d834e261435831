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
    /// What is synced, as the `locked` error names it: "the outbox of the table …".
    package let synced: String
    /// Where the wait is set, as the `locked` error's advice names it: "Outbox(in:)".
    package let waitSetBy: String

    /// The lock of the file at `url`, taken waiting up to `wait`, for the sync of `synced`,
    /// whose wait `waitSetBy` sets.
    package init(url: URL, wait: Duration, holding synced: String, waitSetBy: String = "Outbox(in:)") {
        self.url = url
        self.wait = wait
        self.synced = synced
        self.waitSetBy = waitSetBy
    }

    /// Runs `body` holding the lock.
    ///
    /// - Throws: `locked` naming what is synced when another instance syncs past the wait;
    ///   `CancellationError` when the task is cancelled while it waits; what `body` throws.
    func holding<T>(_ body: () async throws -> T) async throws -> T {
        let lock = try await OutboxLock(url: url, lockWait: wait, holding: synced, waitSetBy: waitSetBy)
        defer { lock.release() }
        return try await body()
    }
}
