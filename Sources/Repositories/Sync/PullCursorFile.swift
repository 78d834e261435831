import Foundation
import Synchronization

/// The cursor of the last page of the remote's change feed an offline-first sync applied
/// (``SyncCursor``), kept in a file beside the outbox (the outbox's name with `.cursor`
/// added), so the next sync, in this process or after a restart, asks only for what changed
/// after it.
///
/// It is written only after the page it follows is in the local store, whole (a new file
/// flushed to disk, renamed over the old one, the directory flushed): a crash in between
/// leaves the older cursor, and that page is applied again, which changes nothing. A missing
/// file means no cursor: the next pull reads the remote in full and starts one.
final class PullCursorFile: Sendable {
    let url: URL
    private let cursor: Mutex<SyncCursor?>

    /// Reads the cursor kept at `url`, if any.
    ///
    /// - Throws: `corrupted` when the file holds no cursor (empty, or not UTF-8): deleting it
    ///   makes the next sync pull in full.
    init(url: URL) throws {
        self.url = url
        cursor = Mutex(try Self.read(url))
    }

    /// The cursor kept; `nil` before the first pull through a feed.
    var current: SyncCursor? { cursor.withLock { $0 } }

    /// Keeps `cursor` durably, in place of the one kept before.
    ///
    /// - Throws: `unavailable` when the file cannot be written; the older cursor stays.
    func keep(_ cursor: SyncCursor) throws {
        let temporary = url.appendingPathExtension("new")
        do {
            try JournalFile.writeFlushed(Data(cursor.token.utf8), to: temporary)
            try JournalFile.rename(temporary.path, over: url.path)
            try JournalFile.synchronizeDirectory(of: url.path)
        } catch {
            throw RepositoryError(
                .unavailable, reason: "The cursor of the remote's change feed could not be kept",
                recovery:
                    "Check the disk (space, permissions); the next sync asks again from the older cursor",
                location: url.path, underlying: error)
        }
        self.cursor.withLock { $0 = cursor }
    }

    /// Forgets the cursor, so the next pull reads the remote in full.
    func forget() throws {
        try JournalFile.remove(url.path)
        cursor.withLock { $0 = nil }
    }

    private static func read(_ url: URL) throws -> SyncCursor? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        let data = try Data(contentsOf: url)
        guard !data.isEmpty, let token = String(data: data, encoding: .utf8) else {
            throw RepositoryError(
                .corrupted, reason: "The file that keeps the remote's feed cursor holds no cursor",
                recovery: "Delete the file; the next sync reads the remote in full and keeps a new cursor",
                location: url.path)
        }
        return SyncCursor(token)
    }
}
