import Foundation
import Repositories

extension HTTPRepository.Configuration {
    /// Plain REST, the default: a JSON array at `baseURL`, `GET`/`PUT`/`DELETE baseURL/{id}`,
    /// `PUT` creates or replaces, `POST baseURL` creates, `Link` headers lead to the next page.
    public static var rest: Self { Self() }

    /// A FastAPI app written as its tutorials write one: `baseURL` is the collection with its
    /// trailing slash (`…/notes/`), items are `…/notes/{id}`, lists are plain arrays read with
    /// `?offset=&limit=` (`pageSize` at most, the tutorials' `le=100`), `PUT` only replaces
    /// (so a save is `PUT`, then `POST` on `404`), keys are snake_case, and a create leaves the
    /// `id` out.
    ///
    /// - Parameters:
    ///   - pageSize: the page size asked for, at most the app's `limit` bound.
    ///   - queries: how the app takes a query's filters and order, if it does
    ///     (``HTTPQueryConvention/lookups(orderingName:codePointTextOrder:tiebreak:maximumLimit:)``,
    ///     the convention Docs/Queries.md shows a FastAPI app implementing); `nil` runs queries on
    ///     the device over the collection.
    public static func fastAPI(pageSize: Int = 100, queries: HTTPQueryConvention? = nil) -> Self {
        var configuration = Self()
        configuration.queries = queries
        configuration.coding = configuration.coding.convertingKeysToSnakeCase().omittingOnCreate(["id"])
        configuration.saveStrategy = .putThenPostOnNotFound
        configuration.pageByOffset(limit: pageSize)
        return configuration
    }

    /// A Django REST Framework `ModelViewSet` behind a router: `…/notes/` and `…/notes/{id}/`
    /// (trailing slashes), pages as `{"count": …, "next": "…", "results": [...]}` (a plain
    /// array is read too, for an API without pagination), counts from the first page's
    /// `count`, `PUT` only replaces (a save is `PUT`, then `POST` on `404`; the model's `id` must
    /// be writable for client-chosen IDs), keys are snake_case, a create leaves the `id` out.
    ///
    /// A `PUT` to DRF keeps the stored value of a field its body leaves out, and Swift's
    /// synthesized `Encodable` leaves out `nil` optionals: to clear a field, encode `nil` as
    /// `null` (`try container.encode(dueAt, forKey: .dueAt)` in `encode(to:)`).
    ///
    /// - Parameters:
    ///   - pageSize: the page size to ask for with `?page_size=`, for an API whose
    ///     pagination has a `page_size_query_param`; `nil` takes the server's. Pages are
    ///     separate requests, so writes made while they are read can make a read miss or
    ///     repeat an entity: fewer, larger pages make that rarer.
    ///   - queries: how the API takes a query's filters and order, if it does
    ///     (``HTTPQueryConvention/djangoFilter(codePointTextOrder:tiebreak:maximumLimit:)`` for
    ///     django-filter, `OrderingFilter` and `LimitOffsetPagination`); `nil` runs queries on
    ///     the device over the collection. It needs limit/offset pagination: an API that pages
    ///     by page number would ignore the window asked for.
    public static func djangoREST(pageSize: Int? = nil, queries: HTTPQueryConvention? = nil) -> Self {
        var configuration = Self()
        configuration.queries = queries
        if let pageSize {
            configuration.endpoints.fetchAll = { resource in
                .get(resource.collection).adding(query: [
                    URLQueryItem(name: "page_size", value: String(pageSize))
                ])
            }
        }
        configuration.trailingSlash = true
        configuration.coding = configuration.coding.convertingKeysToSnakeCase().omittingOnCreate(["id"])
            .unwrappingLists("results", nextPageKey: "next")
        configuration.saveStrategy = .putThenPostOnNotFound
        configuration.endpoints.count = { resource in .get(resource.collection) }
        return configuration
    }

    /// A Rails app's `resources :notes` answering JSON: `/notes` and `/notes/{id}`, `PUT` only
    /// replaces (`find` answers `404`; a save is `PUT`, then `POST` on `404`), `422` with an
    /// errors object is `rejected` quoting it, keys are snake_case.
    ///
    /// - Parameters:
    ///   - rootKey: the key items are wrapped in, both ways (`{"note": {...}}`), for apps
    ///     whose serializers add a root and whose controllers `params.require(:note)`; `nil`
    ///     for plain objects (Rails' `wrap_parameters` wraps JSON bodies itself).
    ///   - listRootKey: the key lists are wrapped in (`{"notes": [...]}`), if any.
    public static func rails(rootKey: String? = nil, listRootKey: String? = nil) -> Self {
        var configuration = Self()
        var coding = configuration.coding.convertingKeysToSnakeCase().omittingOnCreate(["id"])
        if let rootKey { coding = coding.unwrappingItems(rootKey).wrappingRequests(in: rootKey) }
        if let listRootKey { coding = coding.unwrappingLists(listRootKey) }
        configuration.coding = coding
        configuration.saveStrategy = .putThenPostOnNotFound
        return configuration
    }

    /// json-server (0.17): `/notes` and `/notes/{id}`, `PUT` of an unknown ID answers `404` (a
    /// save is `PUT`, then `POST` on `404`), a create leaves the `id` out (json-server would
    /// keep a placeholder), counts from `X-Total-Count` (`?_limit=1`), the collection in pages
    /// of `pageSize` by its `Link` header, and queries by its filters, `_sort` and `_start`/`_limit`
    /// as far as they answer as Swift does (``HTTPQueryConvention/jsonServer(maximumLimit:)``).
    public static func jsonServer(pageSize: Int = 1_000) -> Self {
        var configuration = Self()
        configuration.queries = .jsonServer(maximumLimit: pageSize)
        configuration.coding = configuration.coding.omittingOnCreate(["id"])
        configuration.saveStrategy = .putThenPostOnNotFound
        configuration.endpoints.fetchAll = { resource in
            .get(resource.collection).adding(query: [
                URLQueryItem(name: "_page", value: "1"),
                URLQueryItem(name: "_limit", value: String(pageSize)),
            ])
        }
        configuration.endpoints.count = { resource in
            .get(resource.collection).adding(query: [URLQueryItem(name: "_limit", value: "1")])
        }
        return configuration
    }

    /// A PostgREST table, as Supabase serves one (`https://<project>.supabase.co/rest/v1/notes`):
    /// items are read and deleted by filter (`?id=eq.42`, `?id=in.(1,2)`), saves are upserts
    /// (`POST` with `Prefer: resolution=merge-duplicates`, a batch as one array: atomic),
    /// creates answer the stored rows (`Prefer: return=representation`), the table is read in
    /// pages of `pageSize` by `offset`/`limit`, counts come from `Content-Range`
    /// (`Prefer: count=exact`), and queries become PostgREST's filters, `order`, `offset` and
    /// `limit` (``HTTPQueryConvention/postgREST(codePointTextOrder:tiebreak:maximumLimit:)``).
    ///
    /// - Parameters:
    ///   - apiKey: the project's API key, sent as `apikey` with every request, and as the
    ///     bearer token unless `tokenProvider` gives one (a signed-in user's access token).
    ///   - primaryKey: the primary key's column, the entity's `id` as it is encoded.
    ///   - order: the column the table is read in order of (`created_at`), for pages that
    ///     neither skip nor repeat rows; `nil` leaves the order to the database.
    ///   - pageSize: rows per page; at most the server's `max-rows` (1,000 on Supabase).
    ///   - tokenProvider: the user's access token, asked per request.
    ///   - codePointTextOrder: whether the table's text columns compare by code point
    ///     (`COLLATE "C"`), as Swift does; only then do text ranges and sorts of a query run in
    ///     the database.
    public static func postgREST(
        apiKey: String? = nil, primaryKey: String = "id", order: String? = nil, pageSize: Int = 1_000,
        tokenProvider: (@Sendable () async throws -> String?)? = nil, codePointTextOrder: Bool = false
    ) -> Self {
        var configuration = Self()
        // Ties in the collection's order: by the order's column, then the key, so windows of a
        // sort with ties are cut from one order. Without an order, the database's, as
        // fetchAll() reads it (arbitrary in PostgreSQL, so give one).
        let tiebreak = order.map { $0 == primaryKey ? [$0] : [$0, primaryKey] } ?? []
        configuration.queries = .postgREST(
            codePointTextOrder: codePointTextOrder, tiebreak: tiebreak, maximumLimit: pageSize)
        if let apiKey {
            configuration.headers["apikey"] = apiKey
            configuration.tokenProvider = { try await tokenProvider?() ?? apiKey }
        } else {
            configuration.tokenProvider = tokenProvider
        }
        let upsert = "resolution=merge-duplicates,return=minimal"
        configuration.endpoints.fetch = { id, resource in
            .get(PostgREST.filter(resource.collection, primaryKey, "eq." + resource.segment(for: id)))
        }
        configuration.endpoints.fetchAll = { resource in
            .get(
                order.map { PostgREST.filter(resource.collection, "order", $0) } ?? resource.collection)
        }
        configuration.endpoints.save = { _, resource in
            .post(resource.collection).adding(header: "Prefer", upsert)
        }
        configuration.endpoints.saveBatch = { _, resource in
            .post(resource.collection).adding(header: "Prefer", upsert)
        }
        configuration.endpoints.create = { _, resource in
            .post(resource.collection).adding(header: "Prefer", "return=representation")
        }
        configuration.endpoints.createBatch = { _, resource in
            .post(resource.collection).adding(header: "Prefer", "return=representation")
        }
        configuration.endpoints.delete = { id, resource in
            .delete(PostgREST.filter(resource.collection, primaryKey, "eq." + resource.segment(for: id)))
        }
        configuration.endpoints.deleteBatch = { ids, resource in
            .delete(
                PostgREST.filter(resource.collection, primaryKey, PostgREST.inList(ids.map(resource.segment)))
            )
        }
        configuration.endpoints.deleteAll = { resource in
            // Supabase refuses a DELETE without a filter (pg-safeupdate); this one matches every row.
            .delete(PostgREST.filter(resource.collection, primaryKey, "not.is.null"))
        }
        configuration.endpoints.count = { resource in
            .get(PostgREST.filter(PostgREST.filter(resource.collection, "select", primaryKey), "limit", "1"))
                .adding(header: "Prefer", "count=exact")
        }
        configuration.coding = configuration.coding.omittingOnCreate([primaryKey])
        configuration.coding.decodeEntity = { reply, decoder in
            try PostgREST.single(Entity.self, reply, decoder)
        }
        configuration.pageByOffset(limit: pageSize)
        return configuration
    }
}

/// PostgREST's query conventions.
enum PostgREST {
    /// `url` with `name=value` added to its query, the value escaped to RFC 3986's unreserved
    /// characters and PostgREST's operators (`.`, `,`, `(`, `)`, `"`, `:`) kept readable.
    static func filter(_ url: URL, _ name: String, _ value: String) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return url }
        let allowed = CharacterSet(
            charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~,():*")
        let escaped = value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
        let pair = name + "=" + escaped
        components.percentEncodedQuery = components.percentEncodedQuery.map { $0 + "&" + pair } ?? pair
        return components.url ?? url
    }

    /// `in.(1,2,"a,b")`: the values, each in double quotes when it holds a character PostgREST
    /// reads as syntax.
    static func inList(_ values: [String]) -> String {
        "in.(" + values.map(quoted).joined(separator: ",") + ")"
    }

    /// `value` as a value inside `in.(…)`, `or=(…)` and `and(…)`: in double quotes (`\"` and
    /// `\\` escaped) when it is empty or holds a character PostgREST reads as syntax.
    static func quoted(_ value: String) -> String {
        let reserved = CharacterSet(charactersIn: ",.:()\" \\")
        guard value.unicodeScalars.contains(where: reserved.contains) || value.isEmpty else { return value }
        let escaped = value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(
            of: "\"", with: "\\\"")
        return "\"" + escaped + "\""
    }

    /// The one row of an answer: an object (`Accept: application/vnd.pgrst.object+json`) or an
    /// array of one; an empty array is `notFound`.
    static func single<Entity: Decodable>(_ type: Entity.Type, _ reply: HTTPReply, _ decoder: JSONDecoder)
        throws
        -> Entity
    {
        let first = reply.body.first { ![0x20, 0x0A, 0x0D, 0x09].contains($0) }
        guard first == UInt8(ascii: "[") else { return try decoder.decode(Entity.self, from: reply.body) }
        let rows = try decoder.decode([Entity].self, from: reply.body)
        guard let row = rows.first else {
            throw RepositoryError(
                .notFound, reason: "\(reply.method) \(reply.url.absoluteString) answered no row",
                location: reply.url.absoluteString)
        }
        return row
    }
}
