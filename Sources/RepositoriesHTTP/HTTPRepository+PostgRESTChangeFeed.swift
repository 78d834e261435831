import Foundation
import Repositories

extension HTTPRepository.ChangeFeed {
    /// The change feed of a PostgREST table (Supabase), read from two columns the table keeps:
    /// the time of each row's last write, and whether the row is deleted (soft deletes, so a
    /// deletion stays a row the feed can hand out). Pair it with
    /// ``HTTPRepository/Configuration/softDeleting(column:)``, which makes deletes mark the
    /// column instead of removing rows:
    ///
    /// ```swift
    /// var configuration = HTTPRepository<Note>.Configuration.postgREST(apiKey: anonKey)
    /// configuration.softDeleting(column: "deleted")
    /// configuration.changeFeed = .postgREST(updatedAt: "updated_at", deleted: "deleted", primaryKey: "id")
    /// ```
    ///
    /// A page is the rows after the cursor in (`updatedAt`, `primaryKey`) order:
    ///
    /// ```text
    /// GET /rest/v1/notes?deleted=is.false&order=updated_at.asc,id.asc&limit=500     the first read
    /// GET /rest/v1/notes?or=(updated_at.gt."2024-05-01T09:30:00.123456+00:00",
    ///         and(updated_at.eq."2024-05-01T09:30:00.123456+00:00",id.gt.42))
    ///         &order=updated_at.asc,id.asc&limit=500
    /// ```
    ///
    /// A row whose `deleted` column is true comes back as its ID among `deleted`, any other as
    /// an entity among `saved`; the first read (no cursor) leaves deleted rows out. The three
    /// columns are read from each row's JSON, so the entity need not have them. A page of
    /// `limit` rows says more follow.
    ///
    /// **The lag.** PostgreSQL stamps `updated_at` when the writing transaction runs, not when it
    /// commits, so a transaction that commits late lands behind a cursor that may already be
    /// past its stamp. On the last page of a read (`hasMore == false`) the cursor therefore
    /// never passes the server's clock (its `Date` header) minus `lag`: rows stamped later are
    /// delivered now and again on the next read, which is harmless. A write whose transaction
    /// commits more than `lag` after it stamped the row can be missed until a full pull; stamp
    /// with `clock_timestamp()` (the time the row is written, not `now()`, the time the
    /// transaction began) so only the time from the write to the commit counts. A full page is
    /// never held back (it could never end), and a reply without a `Date` header leaves the
    /// cursor at its last row.
    ///
    /// **Cursors** are the last row's (`updatedAt`, `primaryKey`) with a check of the table's
    /// URL: a cursor altered, or issued for another table, throws `cursorExpired` before any
    /// request. PostgREST forgets nothing by itself, so a cursor never expires, unless
    /// `retention` says how long soft-deleted rows are kept before they are purged: a cursor
    /// whose reader last read the whole feed longer ago than that, by the server's clock,
    /// throws `cursorExpired` once the server answers, and an offline-first sync reads again
    /// from the start.
    ///
    /// - Parameters:
    ///   - updatedAt: the column of each row's last write time (`timestamptz`, stamped by a
    ///     trigger on every insert and update).
    ///   - deleted: the soft-delete column (`boolean`, true once the row is deleted).
    ///   - primaryKey: the primary key's column, the entity's `id` as it is encoded.
    ///   - lag: how late a transaction may commit after stamping its rows and still be seen
    ///     by an incremental read; `.zero` turns the bound off, for a table whose writes commit
    ///     in the order they are stamped.
    ///   - retention: how long soft-deleted rows are kept before a purge removes them; `nil`
    ///     (the default) for a table that keeps them.
    public static func postgREST(
        updatedAt: String = "updated_at", deleted: String = "deleted", primaryKey: String = "id",
        lag: Duration = .seconds(5), retention: Duration? = nil
    ) -> HTTPRepository.ChangeFeed {
        let table = PostgRESTFeedTable(
            updatedAt: updatedAt, deleted: deleted, primaryKey: primaryKey, lag: lag, retention: retention)
        var feed = HTTPRepository.ChangeFeed(
            request: { cursor, limit, resource in
                // A cursor that cannot be read was refused before this; read from the start.
                let position = cursor.map {
                    (PostgRESTCursor(token: $0.token, table: resource.collection) ?? .beginning).position
                }
                return table.request(after: position, limit: limit, table: resource.collection)
            },
            decodePage: { reply, decoder in
                // Without the cursor asked from, the page reads as a first read: the lag still
                // bounds its cursor, but `retention` counts from this read. `changes(since:limit:)`
                // reads pages knowing the cursor.
                let limit = reply.url.queryItem("limit").flatMap(Int.init) ?? 1
                return try table.page(
                    reply, decoder, after: nil, limit: limit, table: Self.tableURL(of: reply.url))
            },
            expiredStatuses: [])
        feed.refusal = { cursor, resource in
            PostgRESTCursor(token: cursor.token, table: resource.collection) == nil
                ? "it is not a cursor this table's feed wrote (altered, or another table's)" : nil
        }
        feed.decodePageAfter = { cursor, limit, resource, reply, decoder in
            try table.page(
                reply, decoder,
                after: cursor.map {
                    PostgRESTCursor(token: $0.token, table: resource.collection) ?? .beginning
                },
                limit: limit, table: resource.collection)
        }
        return feed
    }

    /// `url` without its query: the table a feed request went to.
    private static func tableURL(of url: URL) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return url }
        components.query = nil
        return components.url ?? url
    }
}

/// A point in a PostgREST table's feed, as its cursor's token writes it.
struct PostgRESTCursor: Sendable, Equatable {
    /// Where the reader stands in (`updated_at`, primary key) order.
    enum Position: Sendable, Equatable {
        /// Before every row, tombstones included.
        case start
        /// After the row stamped `stamp` (its text, as the server wrote it) whose primary key
        /// reads `key`.
        case row(stamp: String, key: String)
        /// Before every row stamped at `stamp` or later: where the lag holds a reader back.
        case time(stamp: String)
    }

    /// Where the reader stands.
    var position: Position
    /// The server's time, in whole seconds since 1970, up to which the reader has seen every
    /// deletion (the time of its last read to the end, less the lag); `nil` when unknown (no
    /// `Date` header).
    var seenUntil: Int?

    /// A cursor before everything, of unknown age: what a cursor that cannot be read is
    /// treated as when a request must be made anyway.
    static let beginning = PostgRESTCursor(position: .start, seenUntil: nil)

    init(position: Position, seenUntil: Int?) {
        self.position = position
        self.seenUntil = seenUntil
    }

    /// The token: `<kind>|<stamp>|<seen until>|<key>|<check>`, the check a fingerprint of the
    /// rest and of the table's URL.
    func token(table: URL) -> String {
        let body: String
        let seen = seenUntil.map(String.init) ?? ""
        switch position {
        case .start: body = "s||\(seen)|"
        case .row(let stamp, let key): body = "r|\(stamp)|\(seen)|\(key)"
        case .time(let stamp): body = "t|\(stamp)|\(seen)|"
        }
        return body + "|" + Self.check(body, table: table)
    }

    /// The cursor `token` writes for `table`, or `nil` when it is not one this feed wrote
    /// for that table.
    init?(token: String, table: URL) {
        guard let bar = token.lastIndex(of: "|") else { return nil }
        let body = String(token[..<bar])
        guard token[token.index(after: bar)...] == Self.check(body, table: table) else { return nil }
        let fields = body.split(separator: "|", maxSplits: 3, omittingEmptySubsequences: false).map(
            String.init)
        guard fields.count == 4 else { return nil }
        let (kind, stamp, seen, key) = (fields[0], fields[1], fields[2], fields[3])
        if seen.isEmpty {
            seenUntil = nil
        } else {
            guard let seconds = Int(seen) else { return nil }
            seenUntil = seconds
        }
        switch kind {
        case "s" where stamp.isEmpty && key.isEmpty: position = .start
        case "r" where InternetDate.parse(stamp) != nil: position = .row(stamp: stamp, key: key)
        case "t" where InternetDate.parse(stamp) != nil && key.isEmpty: position = .time(stamp: stamp)
        default: return nil
        }
    }

    private static func check(_ body: String, table: URL) -> String {
        Fingerprint.of(table.absoluteString + "\n" + body)
    }
}

/// A table's feed columns and bounds, and the requests and pages of its feed.
struct PostgRESTFeedTable: Sendable {
    var updatedAt: String
    var deleted: String
    var primaryKey: String
    var lag: Duration
    var retention: Duration?

    /// The rows after `position` (`nil`: the first read, rows not deleted), at most `limit`,
    /// in (`updatedAt`, `primaryKey`) order.
    func request(after position: PostgRESTCursor.Position?, limit: Int, table: URL) -> HTTPEndpoint {
        var url = table
        switch position {
        case nil: url = PostgREST.filter(url, deleted, "is.false")
        case .start?: break
        case .time(let stamp)?: url = PostgREST.filter(url, updatedAt, "gte." + stamp)
        case .row(let stamp, let key)?:
            let (time, id) = (PostgREST.quoted(stamp), PostgREST.quoted(key))
            url = PostgREST.filter(
                url, "or", "(\(updatedAt).gt.\(time),and(\(updatedAt).eq.\(time),\(primaryKey).gt.\(id)))")
        }
        url = PostgREST.filter(url, "order", "\(updatedAt).asc,\(primaryKey).asc")
        return .get(PostgREST.filter(url, "limit", String(limit)))
    }

    /// Reads `reply` (the rows after `cursor`, `nil` for the first read) as a page, and writes
    /// the cursor that follows it for `table`.
    ///
    /// - Throws: `cursorExpired` when ``retention`` has passed since the cursor's reader last
    ///   read to the end; a `DecodingError` for rows that are not the table's.
    func page<Entity: Decodable & Sendable, ID: Decodable & Hashable & Sendable>(
        _ reply: HTTPReply, _ decoder: JSONDecoder, after cursor: PostgRESTCursor?, limit: Int, table: URL
    ) throws -> ChangePage<Entity, ID> {
        let serverNow = reply.header("Date").flatMap(InternetDate.parseHTTPDate)
        if let retention, let seen = cursor?.seenUntil, let serverNow,
            serverNow.timeIntervalSince1970 - Double(seen) > retention.secondsValue
        {
            throw RepositoryError(
                .cursorExpired,
                reason: "The cursor's reader last read \(table.absoluteString)'s feed to the end at "
                    + "\(InternetDate.format(Date(timeIntervalSince1970: Double(seen))) ?? String(seen)), longer ago "
                    + "than the \(retention) soft-deleted rows are kept: deletions since may have been purged",
                recovery: "Read the feed again from the start (a nil cursor); an offline-first sync does so "
                    + "itself",
                location: reply.url.absoluteString, httpStatus: reply.status)
        }
        let rows = try FeedRow<Entity, ID>.rows(in: reply.body, columns: self, with: decoder)
        let hasMore = rows.count >= limit
        var position = rows.last.map { PostgRESTCursor.Position.row(stamp: $0.stamp, key: $0.key) }
        var seenUntil = cursor?.seenUntil ?? (cursor == nil ? serverNow.map(Self.seconds) : nil)
        if !hasMore, let serverNow {
            let bound = serverNow.addingTimeInterval(-lag.secondsValue)
            seenUntil = Self.seconds(bound)
            if lag > .zero {
                position = heldBack(rows, before: bound, from: cursor?.position)
            }
        }
        let next = PostgRESTCursor(position: position ?? cursor?.position ?? .start, seenUntil: seenUntil)
        return ChangePage(
            saved: rows.compactMap(\.entity), deleted: rows.filter { $0.entity == nil }.map(\.id),
            next: SyncCursor(next.token(table: table)), hasMore: hasMore)
    }

    /// Where a last page leaves its reader so the cursor does not pass `bound`: after its last
    /// row stamped at or before `bound`; else where it started from, unless that is past
    /// `bound` too (a full page before it went there) or it started from nothing, then at
    /// `bound` itself.
    private func heldBack(
        _ rows: [FeedRow<some Any, some Any>], before bound: Date, from start: PostgRESTCursor.Position?
    ) -> PostgRESTCursor.Position {
        if let row = rows.last(where: { $0.time <= bound }) { return .row(stamp: row.stamp, key: row.key) }
        switch start {
        case .start?: return .start
        case .row(let stamp, _)?, .time(let stamp)?:
            if let time = InternetDate.parse(stamp), time <= bound { return start ?? .start }
        case nil: break
        }
        return InternetDate.format(bound).map { .time(stamp: $0) } ?? start ?? .start
    }

    private static func seconds(_ date: Date) -> Int {
        Int(date.timeIntervalSince1970.rounded(.down))
    }
}

/// One row of a feed's answer: its stamp and primary key, and the entity, or `nil` when the
/// row is deleted.
private struct FeedRow<Entity: Decodable, ID: Decodable>: Decodable {
    var stamp: String
    var time: Date
    var key: String
    var id: ID
    var entity: Entity?

    private static var columnsInfo: CodingUserInfoKey? {
        CodingUserInfoKey(rawValue: "RepositoriesHTTP.postgRESTFeedColumns")
    }

    /// Decodes `body`, a JSON array of rows, whose feed columns `columns` names.
    static func rows(in body: Data, columns: PostgRESTFeedTable, with decoder: JSONDecoder) throws
        -> [FeedRow]
    {
        guard let columnsInfo else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: [], debugDescription: "No user-info key for the feed's columns"))
        }
        decoder.userInfo[columnsInfo] = columns
        return try decoder.decode([FeedRow].self, from: body)
    }

    init(from decoder: any Decoder) throws {
        guard let columnsInfo = Self.columnsInfo,
            let columns = decoder.userInfo[columnsInfo] as? PostgRESTFeedTable
        else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: [], debugDescription: "The feed's columns were not given"))
        }
        let container = try decoder.container(keyedBy: NamedCodingKey.self)
        func column(_ name: String) -> NamedCodingKey { NamedCodingKey.find(name, in: container) }
        let stampKey = column(columns.updatedAt)
        stamp = try container.decode(String.self, forKey: stampKey)
        guard let time = InternetDate.parse(stamp) else {
            throw DecodingError.dataCorruptedError(
                forKey: stampKey, in: container,
                debugDescription: "\"\(stamp)\" in the column \(columns.updatedAt) is not a timestamp")
        }
        self.time = time
        let idKey = column(columns.primaryKey)
        id = try container.decode(ID.self, forKey: idKey)
        key = try container.decode(ColumnText.self, forKey: idKey).text
        let deleted = try container.decode(Bool.self, forKey: column(columns.deleted))
        entity = deleted ? nil : try Entity(from: decoder)
    }
}

/// A column's value (a string or a number) as PostgREST's filters write it: a string as it
/// is, an integer in its digits, any other number as `Decimal` writes it (no `Double`
/// rounding).
private struct ColumnText: Decodable {
    var text: String

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let string = try? container.decode(String.self) {
            text = string
        } else if let integer = try? container.decode(Int64.self) {
            text = String(integer)
        } else if let integer = try? container.decode(UInt64.self) {
            text = String(integer)
        } else {
            text = try container.decode(Decimal.self).description
        }
    }
}

extension Duration {
    /// The duration in seconds.
    fileprivate var secondsValue: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
