import Foundation
import Repositories

extension HTTPRepository {
    /// How an API serves its change feed: the request for the changes after a cursor, and how
    /// its answer reads as a `ChangePage`. Name one in ``Configuration/changeFeed`` and the
    /// repository is a feed an offline-first sync pulls through, so a sync costs what changed.
    ///
    /// ```swift
    /// var configuration = HTTPRepository<Task>.Configuration.fastAPI()
    /// configuration.changeFeed = .changesEndpoint()   // GET /tasks/changes?since=…&limit=…
    /// ```
    ///
    /// ``changesEndpoint(path:sinceName:limitName:savedKey:deletedKey:nextKey:moreKey:takesSubset:)`` is
    /// this library's wire convention (Docs/HTTP.md shows it served by FastAPI and Django REST
    /// Framework): `GET <collection>/changes?limit=N` first, then `?since=<next>&limit=N`,
    /// answered `{"saved": [...], "deleted": [...], "next": "…", "more": false}`, and `410 Gone`
    /// for a cursor the server can no longer answer from.
    public struct ChangeFeed: Sendable {
        /// The request for the changes after `cursor` (`nil`: from the beginning, every entity
        /// there is), at most `limit` IDs.
        public var request: @Sendable (_ cursor: SyncCursor?, _ limit: Int, Resource) -> HTTPEndpoint
        /// Reads a `2xx` answer as a page, with the configuration's decoder.
        public var decodePage: @Sendable (HTTPReply, JSONDecoder) throws -> ChangePage<Entity, ID>
        /// The statuses that mean the server can no longer answer from the cursor sent (its
        /// tombstones were pruned, or the cursor is another server's): they throw
        /// `cursorExpired`, and an offline-first sync then reads the feed from the start.
        public var expiredStatuses: Set<Int>
        /// Why a cursor cannot be answered from, found before any request (a token the feed
        /// never wrote), or `nil`: for a feed whose cursors the client writes (PostgREST's).
        var refusal: (@Sendable (SyncCursor, Resource) -> String?)?
        /// Reads a page knowing the cursor and limit it was asked with, instead of
        /// ``decodePage``: for a feed whose next cursor depends on them (PostgREST's).
        var decodePageAfter:
            (@Sendable (SyncCursor?, Int, Resource, HTTPReply, JSONDecoder) throws -> ChangePage<Entity, ID>)?
        /// Whether the feed's request may carry a subset's conditions as the configuration's
        /// query parameters (``Configuration/queries``), for an offline-first repository that
        /// syncs a subset (``HTTPRepository/changes(since:limit:in:)``). A server that takes
        /// them must answer among `saved` only the entities that meet them, and among `deleted`
        /// the ID of every other entity changed after the cursor, so a reader learns what left
        /// its subset: ``SyncEndpoint`` does. A server that merely filtered its page would leave
        /// out the entity that stopped meeting them, and the device would keep it. `false` by
        /// default: the pages are read whole and restricted on the device, which costs more
        /// and is never wrong. The PostgREST feed leaves it `false`.
        public var takesSubset: Bool = false

        /// A feed served by `request` and read by `decodePage`.
        public init(
            request: @escaping @Sendable (_ cursor: SyncCursor?, _ limit: Int, Resource) -> HTTPEndpoint,
            decodePage: @escaping @Sendable (HTTPReply, JSONDecoder) throws -> ChangePage<Entity, ID>,
            expiredStatuses: Set<Int> = [410]
        ) {
            self.request = request
            self.decodePage = decodePage
            self.expiredStatuses = expiredStatuses
        }

        /// This library's convention: `GET <collection>/<path>?since=<cursor>&limit=<n>` (no
        /// `since` on the first read), answered with one JSON object, and `410 Gone` when the
        /// cursor is too old.
        ///
        /// ```text
        /// GET /tasks/changes?since=7f3a:1042&limit=500
        /// 200 {"saved": [{"id": "…", "title": "Buy milk"}], "deleted": ["…"],
        ///      "next": "7f3a:1044", "more": false}
        /// ```
        ///
        /// With `takesSubset`, an offline-first repository that syncs a subset, and a
        /// configuration with a query convention (``Configuration/queries``), the request also
        /// carries the subset's conditions as that convention writes them
        /// (`GET /tasks/changes?limit=500&owner=ana` with the lookups convention); the server
        /// answers among `saved` only the entities that meet them, and among `deleted` the ID
        /// of every other entity changed after the cursor (``takesSubset``).
        ///
        /// `saved` holds each entity changed after the cursor as it is now, encoded as the
        /// collection's items are; `deleted` the IDs deleted after it; `next` the cursor to send
        /// next (a string, or an integer); `more` whether more changes follow at once. The key
        /// names are matched as the configuration's decoder reads keys (`has_more` is found as
        /// `hasMore` under snake_case conversion).
        ///
        /// - Parameters:
        ///   - path: the feed's path segment under the collection (a trailing `/` is added
        ///     where the configuration's ``Configuration/trailingSlash`` says so).
        ///   - sinceName: the query parameter of the cursor.
        ///   - limitName: the query parameter of the page size.
        ///   - savedKey: the answer's key for the entities saved.
        ///   - deletedKey: the answer's key for the IDs deleted.
        ///   - nextKey: the answer's key for the next cursor.
        ///   - moreKey: the answer's key for whether more follow.
        ///   - takesSubset: whether the server serves a subset's pages when the request carries
        ///     its conditions (``takesSubset``): say so only for a server that reports what left
        ///     the subset, as `SyncEndpoint` does.
        public static func changesEndpoint(
            path: String = "changes", sinceName: String = "since", limitName: String = "limit",
            savedKey: String = "saved", deletedKey: String = "deleted", nextKey: String = "next",
            moreKey: String = "more", takesSubset: Bool = false
        ) -> ChangeFeed {
            let keys = FeedAnswerKeys(saved: savedKey, deleted: deletedKey, next: nextKey, more: moreKey)
            var feed = ChangeFeed(
                request: { cursor, limit, resource in
                    var query = [URLQueryItem(name: limitName, value: String(limit))]
                    if let cursor { query.insert(URLQueryItem(name: sinceName, value: cursor.token), at: 0) }
                    return .get(resource.appending(path)).adding(query: query)
                },
                decodePage: { reply, decoder in
                    let answer = try FeedAnswer<Entity, ID>.open(reply.body, keys: keys, with: decoder)
                    return ChangePage(
                        saved: answer.saved, deleted: answer.deleted, next: SyncCursor(answer.next),
                        hasMore: answer.more)
                })
            feed.takesSubset = takesSubset
            return feed
        }
    }
}

/// The key names of a feed's answer object.
struct FeedAnswerKeys: Sendable {
    var saved: String
    var deleted: String
    var next: String
    var more: String
}

/// A feed's answer object, read under key names given at run time.
private struct FeedAnswer<Entity: Decodable, ID: Decodable>: Decodable {
    var saved: [Entity]
    var deleted: [ID]
    var next: String
    var more: Bool

    private static var keysInfo: CodingUserInfoKey? {
        CodingUserInfoKey(rawValue: "RepositoriesHTTP.feedKeys")
    }

    /// Decodes `body` as an answer whose parts are under `keys`.
    static func open(_ body: Data, keys: FeedAnswerKeys, with decoder: JSONDecoder) throws -> FeedAnswer {
        guard let keysInfo else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: [], debugDescription: "No user-info key for the feed's keys"))
        }
        decoder.userInfo[keysInfo] = keys
        return try decoder.decode(FeedAnswer.self, from: body)
    }

    init(from decoder: any Decoder) throws {
        guard let keysInfo = Self.keysInfo, let keys = decoder.userInfo[keysInfo] as? FeedAnswerKeys else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: [], debugDescription: "The feed's keys were not given"))
        }
        let container = try decoder.container(keyedBy: NamedCodingKey.self)
        func key(_ name: String) -> NamedCodingKey { NamedCodingKey.find(name, in: container) }
        saved = try container.decode([Entity].self, forKey: key(keys.saved))
        deleted = try container.decode([ID].self, forKey: key(keys.deleted))
        more = try container.decode(Bool.self, forKey: key(keys.more))
        let nextKey = key(keys.next)
        if let text = try? container.decode(String.self, forKey: nextKey) {
            next = text
        } else {
            next = String(try container.decode(Int64.self, forKey: nextKey))
        }
    }
}
