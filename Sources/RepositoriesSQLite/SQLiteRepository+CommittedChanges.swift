import Foundation
import Repositories

extension SQLiteRepository {
    /// What every connection commits to this repository's table, as it commits: another
    /// process (an app's widget or share extension on the same file), another repository
    /// instance, or this one. For live screens that must show what another process wrote.
    ///
    /// ```swift
    /// let notes = try await SQLiteRepository<Note>(fileURL: group.appending(path: "notes.sqlite"))
    /// let screen = notes.observed(following: notes.committedChanges())
    /// for try await list in screen.valuesAll() { render(list) }  // the extension's writes too
    /// ```
    ///
    /// A task checks the table's change log (see "Change feed") every `interval` for changes
    /// numbered past the last one it reported: one read transaction that looks up the log's
    /// newest entry through its index and waits for no writer; the table itself is not read.
    /// When there are new ones, it reads them as ``changes(since:limit:)`` does and yields
    /// `.saved` with the entities saved and `.deleted` with the IDs deleted, oldest first
    /// (each ID once, as it now is). It starts from the log's newest change when it is
    /// called. A change is seen within about `interval` of its commit (benchmark figure 18).
    ///
    /// - Writes made through this instance are reported too, after those its callers already
    ///   know of: an `ObservedRepository` over it reads again once more.
    /// - When the log has forgotten tombstones past where the stream stopped (a prune, see
    ///   ``SQLiteOptions/tombstoneRetention``), it yields `.invalidatedAll` and goes on from
    ///   the newest change.
    /// - A read that meets a lock, or a disk that fails for a moment, is tried again at the
    ///   next check. The stream ends when the repository is closed, when a read finds damage,
    ///   or when its consumer's task is cancelled or stops iterating.
    ///
    /// - Parameter interval: how long the task waits between two checks; 20 ms by default.
    public func committedChanges(checkingEvery interval: Duration = .milliseconds(20)) -> AsyncStream<
        RepositoryChange<Entity>
    > {
        let (stream, continuation) = AsyncStream.makeStream(of: RepositoryChange<Entity>.self)
        let task = Task { [self] in
            do {
                var cursor = try await newestCursor()
                while true {
                    let page: ChangePage<Entity, ID>
                    do {
                        page = try await changes(since: cursor, limit: 512)
                    } catch let error as RepositoryError where error.code == .cursorExpired {
                        continuation.yield(.invalidatedAll)
                        cursor = try await newestCursor()
                        continue
                    } catch let error as RepositoryError
                        where error.code == .locked || error.code == .unavailable
                    {
                        try await Task.sleep(for: interval)
                        continue
                    }
                    if !page.saved.isEmpty { continuation.yield(.saved(page.saved)) }
                    if !page.deleted.isEmpty { continuation.yield(.deleted(page.deleted)) }
                    cursor = page.next
                    if !page.hasMore { try await Task.sleep(for: interval) }
                }
            } catch {
                // Closed, damaged or cancelled: the stream ends.
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// The cursor of the log's newest change: where a reader that wants only what commits
    /// from now on starts.
    func newestCursor() async throws -> SyncCursor {
        let table = database.table
        let location = database.location
        return try await database.read { connection in
            try table.newestCursor(on: connection, location: location).cursor
        }
    }
}
