import Foundation
import Repositories

extension PostgresRepository: ChangeFeedRepository {
    /// The entities saved and the IDs deleted after `cursor`, each ID once, in its state as
    /// the page's statement read it; from `nil`, every entity (and the tombstones kept).
    ///
    /// One statement reads the page, so it sees one snapshot of the table and its log. A page
    /// holds the writes committed after the cursor's snapshot, whatever order their
    /// transactions took their numbers in: a write committed while a page is read is in the
    /// next one, never passed over. Bodies decode as ``fetchAll()`` decodes them.
    ///
    /// - Throws: `RepositoryError`:
    ///   `cursorExpired` when another feed issued `cursor` (another table or database, or this
    ///   table's feed before its log was rebuilt), when tombstones it had not delivered were
    ///   pruned (``pruneTombstones(olderThan:)``), or when it is newer than the server (a
    ///   server restored from a backup);
    ///   `rejected` when `limit` is not above zero;
    ///   `decodingFailed` naming the first row that does not decode.
    /// - Complexity: one round trip; an index range scan from the cursor's oldest running
    ///   transaction, so a transaction left open on the server makes each page scan the log
    ///   written since it began.
    public func changes(since cursor: SyncCursor?, limit: Int) async throws -> ChangePage<Entity, ID> {
        guard limit > 0 else {
            throw RepositoryError(
                .rejected, reason: "A page of changes needs a limit above zero, got \(limit)",
                recovery: "Ask for at least one change per page", location: location)
        }
        var asked: PostgresFeedCursor?
        if let cursor {
            guard let parsed = PostgresFeedCursor(token: cursor.token) else {
                throw expired(cursor, "it was not issued by a PostgreSQL change feed")
            }
            asked = parsed
        }
        let delivered = asked?.delivered ?? .nothing
        let position = asked?.position
        let parameters = [
            PostgresParameter(.text(delivered.text)),
            PostgresParameter(.text(position?.batch.text ?? "")),
            PostgresParameter(.text(String(position?.xid ?? delivered.xmin))),
            PostgresParameter(.integer(position?.change ?? 0)),
            PostgresParameter(.integer(Int64(limit))),
        ]
        let (statement, table) = (table.changesPage, table)
        let read = try await perform { connection in
            try PostgresFeedRead(connection.execute(statement, parameters), table: table)
        }
        if let cursor, let asked {
            try check(cursor, asked, against: read)
        }
        var saved: [Entity] = []
        var deleted: [ID] = []
        for entry in read.entries {
            if let body = entry.body {
                saved.append(try decode(body, key: entry.key))
            } else if let id = entry.key.id(as: ID.self) {
                deleted.append(id)
            } else {
                throw Self.undecodable(
                    entry.key, location: location,
                    underlying: PostgresError(
                        sqlState: nil, message: "the log holds a key that is not one of \(ID.self)"))
            }
        }
        let next: PostgresFeedCursor
        if read.batchContinues, let last = read.entries.last {
            next = PostgresFeedCursor(
                origin: read.origin, delivered: delivered,
                position: .init(batch: read.batch, xid: last.xid, change: last.change))
        } else {
            next = PostgresFeedCursor(origin: read.origin, delivered: read.batch, position: nil)
        }
        return ChangePage(
            saved: saved, deleted: deleted, next: SyncCursor(next.token),
            hasMore: read.batchContinues || read.newerCommitted)
    }

    /// Deletes the tombstones (the log rows of deleted IDs) written at least `retention` ago,
    /// and returns how many it deleted. A cursor issued before the newest of them throws
    /// `cursorExpired` from then on, so its reader reads everything again.
    ///
    /// ```swift
    /// try await notes.pruneTombstones(olderThan: .seconds(30 * 24 * 3600))
    /// ```
    ///
    /// - Parameter retention: how long a tombstone is kept; `nil` for
    ///   ``PostgresOptions/tombstoneRetention``, and when that is `nil` too, nothing is pruned.
    ///   The repository prunes with its options' retention when it opens.
    /// - Complexity: one round trip; an index scan of the tombstones old enough.
    @discardableResult
    public func pruneTombstones(olderThan retention: Duration? = nil) async throws -> Int {
        guard let retention = retention ?? options.tombstoneRetention else { return 0 }
        let microseconds =
            max(0, retention.components.seconds) * 1_000_000
            + max(0, retention.components.attoseconds) / 1_000_000_000_000
        let parameter = PostgresParameter(.text("\(microseconds) microseconds"))
        let statement = table.pruneTombstones
        return try await perform { connection in
            Int(try connection.execute(statement, [parameter]).int64(0, 0) ?? 0)
        }
    }

    private func check(_ cursor: SyncCursor, _ asked: PostgresFeedCursor, against read: PostgresFeedRead)
        throws
    {
        guard asked.origin == read.origin else {
            throw expired(cursor, "another feed issued it (this one is \(read.origin))")
        }
        // Every transaction below the cursor's xmin had ended and is visible to it, so every
        // pruned tombstone was delivered when the newest is below it. Sound, and a little
        // strict: a transaction older than that tombstone still running when the cursor was
        // issued expires it too. A cursor of a read from nil (every entity) needs no tombstone:
        // its reader was sent back there by a pruning, and must be able to finish.
        guard
            asked.delivered == .nothing || read.prunedThrough == 0
                || read.prunedThrough < asked.delivered.xmin
        else {
            throw expired(
                cursor,
                "tombstones it had not delivered were pruned (those up to transaction \(read.prunedThrough))")
        }
        guard asked.delivered.xmax <= read.currentXmax, (asked.position?.batch.xmax ?? 0) <= read.currentXmax
        else {
            throw expired(
                cursor, "it names transactions the server has not reached (was it restored from a backup?)")
        }
    }

    private func expired(_ cursor: SyncCursor, _ why: String) -> RepositoryError {
        RepositoryError(
            .cursorExpired, reason: "The cursor \(cursor.token.prefix(80)) cannot be answered from: \(why)",
            recovery: "Read the changes from nil (every entity) and keep the new cursor", location: location)
    }
}

/// The rows of ``PostgresTable/changesPage``, read on the connection's queue.
struct PostgresFeedRead: Sendable {
    struct Entry: Sendable {
        var key: PostgresKey
        var xid: UInt64
        var change: Int64
        /// The entity's JSON, or `nil` when it does not exist now.
        var body: PostgresStoredBody?
    }

    var origin: String
    var prunedThrough: UInt64
    var batch: PostgresFeedCursor.Snapshot
    var currentXmax: UInt64
    var batchContinues: Bool
    var newerCommitted: Bool
    var entries: [Entry] = []

    init(_ result: PostgresResult, table: PostgresTable) throws {
        guard result.rowCount > 0, let origin = result.text(0, 0), let batchText = result.text(0, 2),
            let batch = PostgresFeedCursor.Snapshot(Substring(batchText))
        else {
            throw PostgresError(
                sqlState: nil,
                message: "the change feed's metadata row \(table.quotedFeed) is missing or unreadable")
        }
        self.origin = origin
        self.prunedThrough = UInt64(bitPattern: result.int64(0, 1) ?? 0)
        self.batch = batch
        self.currentXmax = UInt64(bitPattern: result.int64(0, 3) ?? 0)
        self.batchContinues = result.bytes(0, 4) == [1]
        self.newerCommitted = result.bytes(0, 5) == [1]
        for row in 0..<result.rowCount {
            guard let key = table.key(in: result, row: row, column: 6) else { continue }
            entries.append(
                Entry(
                    key: key, xid: UInt64(bitPattern: result.int64(row, 7) ?? 0),
                    change: result.int64(row, 8) ?? 0, body: table.storedBody(in: result, row: row, column: 9)
                ))
        }
    }
}
