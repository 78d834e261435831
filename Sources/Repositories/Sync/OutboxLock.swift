import Foundation
import Synchronization

/// An exclusive lock on a file beside an outbox whose storage takes none of its own (an
/// outbox in an SQLite database): one outbox instance at a time, in this process or another,
/// as ``FileRepository`` guarantees for the journal outbox. Released by ``release()`` or when
/// the process ends, however it ends.
package final class OutboxLock: Sendable {
    private let file: Mutex<JournalFile?>

    /// Creates the lock file at `url` when absent and takes its lock, waiting up to
    /// `lockWait` for another holder to let go.
    ///
    /// - Throws: `locked` naming the outbox when another instance holds it past `lockWait`;
    ///   `unavailable` when the file cannot be made or opened.
    package init(url: URL, lockWait: Duration?, holding outbox: String) async throws {
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
                        "The other holder kept it longer than lockWait (\(lockWait)); close it first"
                    } else {
                        "Close the other outbox first, or pass lockWait: to wait for it to let go"
                    }
                throw RepositoryError(
                    .locked, reason: "Another process or instance holds the outbox \(outbox)",
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
