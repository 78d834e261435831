import Foundation
import Synchronization

/// An exclusive lock on a file beside an outbox in an SQLite database, which any number of
/// instances share: held by one sync at a time (``OutboxSyncLock``), in this process or
/// another. Released by ``release()`` or when the process ends, however it ends.
package final class OutboxLock: Sendable {
    private let file: Mutex<JournalFile?>

    /// Creates the lock file at `url` when absent and takes its lock, waiting up to
    /// `lockWait` for another holder to let go.
    ///
    /// - Throws: `locked` naming what is synced (`holding`: "the outbox of the table …") and
    ///   where its wait is set (`waitSetBy`: "Outbox(in:)") when another instance's sync holds
    ///   it past `lockWait`; `unavailable` when the file cannot be made or opened;
    ///   `CancellationError` when the task is cancelled while it waits.
    package init(
        url: URL, lockWait: Duration?, holding synced: String, waitSetBy: String = "Outbox(in:)"
    ) async throws {
        let path = url.path
        let deadline = lockWait.map { ContinuousClock.now.advanced(by: $0) }
        while true {
            let file = try JournalFile.openOrCreate(path: path)
            if try file.tryLock() {
                self.file = Mutex(file)
                return
            }
            file.close()
            guard let deadline, ContinuousClock.now < deadline else {
                let recovery =
                    if let lockWait {
                        "Its sync ran longer than lockWait (\(lockWait)); sync again later, or pass a longer lockWait to \(waitSetBy)"
                    } else {
                        "Sync again once it has ended"
                    }
                throw RepositoryError(
                    .locked, reason: "Another process or instance is syncing \(synced)",
                    recovery: recovery, location: path)
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Lets go of the lock; a second call does nothing.
    package func release() {
        file.withLock { file in
            file?.close()
            file = nil
        }
    }
}
