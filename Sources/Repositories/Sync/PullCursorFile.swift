import Foundation
import Synchronization

/// The cursor of the last page of the remote's change feed an offline-first sync applied
/// (``SyncCursor``), and the subset of the remote it was read for, kept in a file beside the
/// outbox (the outbox's name with `.cursor` added), so the next sync, in this process or
/// after a restart, asks only for what changed after it.
///
/// It is written only after the page it follows is in the local store, whole (a new file
/// flushed to disk, renamed over the old one, the directory flushed): a crash in between
/// leaves the older cursor, and that page is applied again, which changes nothing. A missing
/// file means no cursor: the next pull reads the remote in full and starts one.
///
/// A cursor serves only the subset it was kept for (``SyncSubset/key``): a repository that
/// now syncs another subset has no cursor, since entities that joined the new subset without
/// changing would never come through the feed. The file is the line
/// `repositories-pull-cursor 2` and a JSON object `{"subset": …, "cursor": …}`; a file
/// without that line, as releases before subsets wrote it, is a bare cursor token read for
/// the whole collection.
final class PullCursorFile: Sendable {
    /// A cursor and the subset it was read for.
    struct Kept: Codable, Sendable, Equatable {
        /// The ``SyncSubset/key`` of the subset; empty for the whole collection.
        var subset: String
        /// The cursor.
        var cursor: SyncCursor
    }

    let url: URL
    private let kept: Mutex<Kept?>
    private static let header = "repositories-pull-cursor 2\n"

    /// Reads the cursor kept at `url`, if any.
    ///
    /// - Throws: `corrupted` when the file holds no cursor (empty, not UTF-8, or a second
    ///   version's file whose object cannot be read): deleting it makes the next sync pull in
    ///   full.
    init(url: URL) throws {
        self.url = url
        kept = Mutex(try Self.read(url))
    }

    /// Reads the file again: another instance of a shared outbox may have kept a cursor since.
    ///
    /// - Throws: what ``init(url:)`` throws.
    func reload() throws {
        let read = try Self.read(url)
        kept.withLock { $0 = read }
    }

    /// The cursor kept and its subset; `nil` before the first pull through a feed.
    var current: Kept? { kept.withLock { $0 } }

    /// The cursor kept for the subset `key`, or `nil` when none was, or one was kept for
    /// another subset.
    func cursor(for key: String) -> SyncCursor? {
        kept.withLock { $0?.subset == key ? $0?.cursor : nil }
    }

    /// Keeps `cursor`, read for the subset `key`, durably, in place of the one kept before.
    ///
    /// - Throws: `unavailable` when the file cannot be written; the older cursor stays.
    func keep(_ cursor: SyncCursor, for key: String) throws {
        let record = Kept(subset: key, cursor: cursor)
        let temporary = url.appendingPathExtension("new")
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let data = Data(Self.header.utf8) + (try encoder.encode(record))
            try JournalFile.writeFlushed(data, to: temporary)
            try JournalFile.rename(temporary.path, over: url.path)
            try JournalFile.synchronizeDirectory(of: url.path)
        } catch {
            throw RepositoryError(
                .unavailable, reason: "The cursor of the remote's change feed could not be kept",
                recovery:
                    "Check the disk (space, permissions); the next sync asks again from the older cursor",
                location: url.path, underlying: error)
        }
        kept.withLock { $0 = record }
    }

    /// Forgets the cursor, durably (the directory flushed), so the next pull reads the
    /// remote in full.
    func forget() throws {
        try JournalFile.remove(url.path)
        try JournalFile.synchronizeDirectory(of: url.path)
        kept.withLock { $0 = nil }
    }

    private static func read(_ url: URL) throws -> Kept? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        let data = try Data(contentsOf: url)
        guard !data.isEmpty, let text = String(data: data, encoding: .utf8) else {
            throw noCursor(at: url, detail: "holds no cursor")
        }
        guard text.hasPrefix(header) else {
            // A release before subsets kept the bare token, for the whole collection.
            return Kept(subset: "", cursor: SyncCursor(text))
        }
        do {
            return try JSONDecoder().decode(Kept.self, from: Data(text.dropFirst(header.count).utf8))
        } catch {
            throw noCursor(at: url, detail: "holds no cursor that can be read (\(error))")
        }
    }

    private static func noCursor(at url: URL, detail: String) -> RepositoryError {
        RepositoryError(
            .corrupted, reason: "The file that keeps the remote's feed cursor \(detail)",
            recovery: "Delete the file; the next sync reads the remote in full and keeps a new cursor",
            location: url.path)
    }
}
