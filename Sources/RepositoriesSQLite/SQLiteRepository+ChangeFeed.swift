import Foundation
import Repositories

extension SQLiteRepository: ChangeFeedRepository {
    /// The entities saved and the IDs deleted after `cursor`, each ID once, in the order of
    /// their latest write; from `nil`, every entity (and the deletions the table remembers).
    ///
    /// The page is read in one read transaction, so it is one consistent snapshot of the table
    /// and its change log, and never waits for the writer (see "Concurrency"). Every entity's
    /// row is checked against its checksum before it is decoded, as every read does.
    ///
    /// - Throws: `RepositoryError` `cursorExpired` for a cursor another file, table or store
    ///   issued, one from this table before its log was made again, one past the log's newest
    ///   change (from another copy of the file), or one older than the deletions forgotten by
    ///   ``SQLiteOptions/tombstoneRetention``; `rejected` when `limit` is not above zero;
    ///   `corrupted` for a damaged row or log entry (see "Change feed"); `decodingFailed`
    ///   naming the first row that does not decode.
    /// - Complexity: O(*k* log *n*) for a page of *k* IDs: a range of the log, and one lookup
    ///   in the `id` index per ID.
    public func changes(since cursor: SyncCursor?, limit: Int) async throws -> ChangePage<Entity, ID> {
        guard limit > 0 else {
            throw RepositoryError(
                .rejected, reason: "A page of changes needs a limit above zero, got \(limit)",
                recovery: "Ask for at least one change per page")
        }
        try Task.checkCancellation()
        let location = database.location
        let position = try cursor.map { try SQLiteChangeCursor($0, location: location) }
        let entries = try await database.changeEntries(after: position, limit: limit)
        return try entries.page(
            decodingWith: { try self.decode($0) }, id: { try $0.id(as: ID.self) }, location: location)
    }

    /// Forgets, now, the tombstones `retention` no longer keeps (by default
    /// ``SQLiteOptions/tombstoneRetention``, as the repository does on its own when it opens
    /// and after every 1,024 deletions): a cursor from before the newest one forgotten
    /// expires. For a server that prunes on a schedule, and for tests of a reader whose cursor
    /// expired.
    ///
    /// ```swift
    /// try await store.delete(id: "n1")
    /// try await store.pruneTombstones(keeping: .newest(0))   // every cursor from before it expires
    /// ```
    ///
    /// - Parameter retention: what to keep this time; `nil` for the options' retention.
    /// - Returns: how many tombstones it forgot; 0 with ``SQLiteOptions/TombstoneRetention/forever``.
    /// - Throws: `RepositoryError` `locked` when another connection holds the database past the
    ///   busy timeout; `closed` after ``close()``.
    /// - Complexity: O(*n*) in the length of the change log.
    @discardableResult
    public func pruneTombstones(keeping retention: SQLiteOptions.TombstoneRetention? = nil) async throws
        -> Int
    {
        try Task.checkCancellation()
        return try await database.pruneTombstones(retention)
    }
}
