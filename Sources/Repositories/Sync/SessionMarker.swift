import Foundation
import Synchronization

/// A file beside the outbox (its name with `.open` added) that exists while the outbox is
/// open: found when the outbox opens, the last session ended without closing it (the
/// process was killed, or the app never called `close()`).
///
/// A write records its change in the outbox and applies it to the local store at the same
/// time, so a process killed during one can leave the entity in the local store with no
/// change queued for it; the remote never gets it. A full pull deletes such an entity (the
/// remote does not hold it and nothing is pending); a pull through a change feed only hears
/// of the remote's changes, so the first pull after such a session reads the remote in full.
final class SessionMarker: Sendable {
    let url: URL
    /// Whether the marker was there when the outbox opened, until a full pull cleared the
    /// doubt (``settled()``).
    private let unsettled: Mutex<Bool>

    /// Notes whether the last session ended without closing, then marks this one open,
    /// durably (the file and its directory flushed) before any write of this session.
    ///
    /// `shared`: other instances use the outbox at the same time (`Outbox(in:)`), so one
    /// marker cannot tell their unclean end from their being open; this session then takes
    /// the last one as ended without closing, and its first pull reads in full.
    ///
    /// - Throws: `unavailable` when the marker cannot be written.
    init(url: URL, shared: Bool = false) throws {
        self.url = url
        unsettled = Mutex(shared || FileManager.default.fileExists(atPath: url.path))
        do {
            try JournalFile.writeFlushed(Data(), to: url)
            try JournalFile.synchronizeDirectory(of: url.path)
        } catch {
            throw RepositoryError(
                .unavailable, reason: "The outbox could not mark its session open",
                recovery: "Check the disk (space, permissions) and open the outbox again",
                location: url.path, underlying: error)
        }
    }

    /// Whether the last session ended without closing and no full pull has run since.
    var lastSessionEndedUnclosed: Bool { unsettled.withLock { $0 } }

    /// A full pull ran: what the last session may have left behind is cleared.
    func settled() { unsettled.withLock { $0 = false } }

    /// Removes the marker: the session ends cleanly.
    func remove() throws { try JournalFile.remove(url.path) }
}
