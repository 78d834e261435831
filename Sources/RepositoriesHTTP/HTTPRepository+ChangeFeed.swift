import Foundation
import Repositories

extension HTTPRepository: ChangeFeedRepository {
    /// Whether the API serves a change feed: whether ``Configuration/changeFeed`` names one.
    /// An offline-first sync over a repository without one reads the collection in full.
    public var servesChangeFeed: Bool { configuration.changeFeed != nil }

    /// The changes after `cursor`, as the API's feed answers them (``Configuration/changeFeed``):
    /// one request per page.
    ///
    /// - Throws: `cursorExpired` when the server answers one of the feed's
    ///   ``ChangeFeed/expiredStatuses`` (`410 Gone` by default), or, before any request, for a
    ///   cursor the feed can tell it never issued (PostgREST's); `rejected` when `limit` is not
    ///   above zero or no feed is configured, before any request; `decodingFailed` quoting an
    ///   answer that is not a page; else `RepositoryError` as the type's documentation lists.
    public func changes(since cursor: SyncCursor?, limit: Int) async throws -> ChangePage<Entity, ID> {
        try await changes(since: cursor, limit: limit, adding: [])
    }

    /// The changes after `cursor` for a reader holding only `subset`. When the feed takes a
    /// subset (``ChangeFeed/takesSubset``) and the configuration has a query convention
    /// (``Configuration/queries``), the request carries the subset's conditions as the
    /// convention writes them, and the server answers the subset's entities and the IDs of
    /// the others changed after the cursor; else the whole feed's page is read. Either way,
    /// each saved entity outside the subset is moved to `deleted` here
    /// (`ChangePage.restricted(to:)`), so a server that ignores a condition costs more
    /// but is never wrong.
    ///
    /// - Throws: as ``changes(since:limit:)``.
    public func changes(since cursor: SyncCursor?, limit: Int, in subset: Query<Entity>) async throws
        -> ChangePage<Entity, ID>
    {
        var items: [URLQueryItem] = []
        if let feed = configuration.changeFeed, feed.takesSubset, let convention = configuration.queries {
            // A field named like the feed's own parameters (`since`, `limit`) stays on the device.
            let feedNames = [nil, SyncCursor("0")].flatMap { cursor in
                let url = feed.request(cursor, limit, resource).url
                return URLComponents(url: url, resolvingAgainstBaseURL: true)?.queryItems?.map(\.name) ?? []
            }
            let conditions = subset.conditions.reduce(Query<Entity>()) { $0.requiring($1) }
            items =
                HTTPQueryPlan(conditions, convention: convention, apiName: apiName, reserving: Set(feedNames))
                .conditionItems
        }
        return try await changes(since: cursor, limit: limit, adding: items).restricted(to: subset)
    }

    /// The page after `cursor`, the feed's request carrying `items` besides its own.
    private func changes(since cursor: SyncCursor?, limit: Int, adding items: [URLQueryItem]) async throws
        -> ChangePage<Entity, ID>
    {
        guard let feed = configuration.changeFeed else {
            throw RepositoryError(
                .rejected,
                reason: "changes(since:limit:) was called on \(resource.collection.absoluteString), "
                    + "whose configuration names no change feed. Nothing was sent",
                recovery: "Set Configuration.changeFeed to the API's feed (.changesEndpoint()), or read "
                    + "the collection with fetchAll()",
                location: resource.collection.absoluteString)
        }
        guard limit > 0 else {
            throw RepositoryError(
                .rejected, reason: "changes(since:limit:) asked for \(limit) changes; ask for 1 or more",
                location: resource.collection.absoluteString)
        }
        if let cursor, let refusal = feed.refusal?(cursor, resource) {
            throw RepositoryError(
                .cursorExpired,
                reason: "changes(since:limit:) was given the cursor \(cursor.token), which the feed of "
                    + "\(resource.collection.absoluteString) cannot answer from: \(refusal). Nothing was sent",
                recovery: "Read the feed again from the start (a nil cursor); an offline-first sync does so "
                    + "itself",
                location: resource.collection.absoluteString)
        }
        let endpoint = feed.request(cursor, limit, resource).addingQueryParameters(items)
        let reply = try await exchange(endpoint, operation: "changes(since:limit:)")
        if feed.expiredStatuses.contains(reply.status) {
            throw RepositoryError(
                .cursorExpired,
                reason: "\(reply.method) \(reply.url.absoluteString) answered \(reply.status): the server "
                    + "no longer answers from the cursor \(cursor?.token ?? "(none)"): \(reply.bodyExcerpt())",
                recovery: "Read the feed again from the start (a nil cursor); an offline-first sync does so "
                    + "itself",
                location: reply.url.absoluteString, httpStatus: reply.status, responseBody: reply.body)
        }
        try check(reply)
        return try decode(
            reply, as: "a page of changes to \(Entity.self) values",
            record: "the page after \(cursor.map { "cursor \($0.token)" } ?? "the start")"
        ) { reply, decoder in
            guard let decodePageAfter = feed.decodePageAfter else {
                return try feed.decodePage(reply, decoder)
            }
            return try decodePageAfter(cursor, limit, resource, reply, decoder)
        }
    }
}
