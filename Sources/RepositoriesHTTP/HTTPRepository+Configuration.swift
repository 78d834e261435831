import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension HTTPRepository {
    /// Everything about how an ``HTTPRepository`` talks to its API; every property has a
    /// REST default.
    ///
    /// ```swift
    /// var configuration = HTTPRepository<Todo>.Configuration()
    /// configuration.headers["X-Client"] = "todo-app/2.1"
    /// configuration.tokenProvider = { try await auth.validAccessToken() }   // asked per request
    /// configuration.timeout = .seconds(10)
    /// configuration.coding = .init(
    ///     makeEncoder: { let e = JSONEncoder(); e.keyEncodingStrategy = .convertToSnakeCase; return e },
    ///     makeDecoder: { let d = JSONDecoder(); d.keyDecodingStrategy = .convertFromSnakeCase; return d })
    /// configuration.endpoints.save = { todo, resource in .post(resource.collection) }
    /// ```
    public struct Configuration: Sendable {
        /// The request each operation sends.
        public var endpoints: Endpoints
        /// How bodies are encoded and replies decoded.
        public var coding: Coding
        /// Writes an ID as the last path segment of its item URL; the result is
        /// percent-escaped, so a `/` in an ID stays inside its segment.
        ///
        /// The default writes a `UUID` as its `uuidString`, a `LosslessStringConvertible`
        /// ID (`Int`, `String`…) as its `description`, and any other ID as its JSON encoding
        /// (unquoted when that is a string, so a `RawRepresentable` ID uses its raw value).
        public var idPath: @Sendable (ID) -> String
        /// Headers sent with every request, under the endpoint's own.
        public var headers: [String: String]
        /// Returns the bearer token for `Authorization: Bearer <token>`, asked before every
        /// request so a refreshed token is used at once; `nil` sends no `Authorization`.
        ///
        /// When it throws a `RepositoryError` that error is thrown as it is;
        /// another error becomes `rejected`, and the request is not sent.
        public var tokenProvider: (@Sendable () async throws -> String?)?
        /// Changes each request last, just before it is sent: sign it, add a header
        /// computed from the body. Errors are treated as the token provider's are.
        public var prepareRequest: (@Sendable (inout URLRequest) async throws -> Void)?
        /// How long one request may take, from sending to the last byte of the body, before
        /// it is cancelled and `timedOut` is thrown. Each page and each entity of a batch is a
        /// request of its own.
        public var timeout: Duration
        /// Whether a `GET` carries `If-None-Match` with the tag last received for its URL,
        /// serving a `304` from the body received with that tag.
        public var conditionalRequests: Bool
        /// Whether a save carries `If-Match` with the tag last seen for the entity (from a
        /// ``HTTPRepository/fetch(id:)`` of it, or an earlier save whose reply had an `ETag`),
        /// so a write over another client's change answers `412` and throws `conflict`.
        /// Saves of entities whose tag is unknown, and saves sent to another URL than the one
        /// the entity is read from (a `POST` to the collection), are sent without it.
        public var ifMatchOnSave: Bool
        /// How many URLs' tags (and `GET` bodies) are kept at most; 0 keeps none.
        public var etagCapacity: Int
        /// The most pages ``HTTPRepository/fetchAll()`` reads before it throws `corrupted`.
        public var maximumPages: Int
        /// How ``HTTPRepository/save(_:)`` writes an entity that may not exist yet: the
        /// ``Endpoints/save`` request alone (the default), or, for servers whose `PUT` only
        /// replaces, `PUT` then `POST` on `404` (or `POST` then `PUT` on `409`).
        public var saveStrategy: HTTPSaveStrategy
        /// Whether the collection's and the items' URLs end in `/`, as Django REST Framework's
        /// do (`/notes/`, `/notes/42/`). Without it such a server answers a redirect, which is
        /// not followed and throws `rejected`.
        public var trailingSlash: Bool
        /// The header every write carries its idempotency key in, so a server can apply a
        /// retried write once; `nil` sends none. Default: `Idempotency-Key`.
        ///
        /// The key is `IdempotencyKey.current` (set by `.retrying` around all attempts of a
        /// call, or by the caller with `withIdempotencyKey`), else a new one per call. A call
        /// that sends several write requests (one per entity of a batch, or the second request
        /// of a ``saveStrategy``) sends a key derived from it per request (`<key>-<n>`,
        /// `<key>-create`), the same for the same request on every attempt.
        public var idempotencyKeyHeader: String?
        /// The API's change feed, if it serves one (`nil` by default): with it the repository
        /// answers `changes(since:limit:)`, and an offline-first sync pulls only what changed.
        ///
        /// ```swift
        /// configuration.changeFeed = .changesEndpoint()   // GET <collection>/changes?since=…
        /// ```
        public var changeFeed: ChangeFeed?
        /// How the API takes a query as parameters of its own (`nil` by default: a query reads
        /// the collection and runs on the device). The presets set the API's convention, so
        /// `fetch(_:)` of a list screen's query asks for the rows it shows:
        ///
        /// ```swift
        /// configuration.queries = .postgREST(codePointTextOrder: true)
        /// ```
        public var queries: HTTPQueryConvention?

        /// Creates a configuration; every parameter has the REST default.
        public init(
            endpoints: Endpoints = Endpoints(),
            coding: Coding = Coding(),
            idPath: @escaping @Sendable (ID) -> String = Resource.defaultPathSegment,
            headers: [String: String] = [:],
            tokenProvider: (@Sendable () async throws -> String?)? = nil,
            prepareRequest: (@Sendable (inout URLRequest) async throws -> Void)? = nil,
            timeout: Duration = .seconds(30),
            conditionalRequests: Bool = true,
            ifMatchOnSave: Bool = false,
            etagCapacity: Int = 256,
            maximumPages: Int = 10_000,
            saveStrategy: HTTPSaveStrategy = .saveEndpoint,
            trailingSlash: Bool = false,
            idempotencyKeyHeader: String? = "Idempotency-Key",
            changeFeed: ChangeFeed? = nil,
            queries: HTTPQueryConvention? = nil
        ) {
            self.endpoints = endpoints
            self.coding = coding
            self.idPath = idPath
            self.headers = headers
            self.tokenProvider = tokenProvider
            self.prepareRequest = prepareRequest
            self.timeout = timeout
            self.conditionalRequests = conditionalRequests
            self.ifMatchOnSave = ifMatchOnSave
            self.etagCapacity = etagCapacity
            self.maximumPages = maximumPages
            self.saveStrategy = saveStrategy
            self.trailingSlash = trailingSlash
            self.idempotencyKeyHeader = idempotencyKeyHeader
            self.changeFeed = changeFeed
            self.queries = queries
        }

        /// Reads the collection in pages of `limit` by offset (`?offset=0&limit=100`, then
        /// `offset=100`…), asking for the next page while a page comes back full: the paging
        /// of FastAPI's tutorials and of PostgREST.
        ///
        /// - Parameters:
        ///   - limit: the page size asked for; a server that caps it lower still pages right
        ///     only if it answers pages of exactly `limit` entities, so ask for no more than its
        ///     cap.
        ///   - offsetName: the query parameter of the offset.
        ///   - limitName: the query parameter of the page size.
        public mutating func pageByOffset(
            limit: Int, offsetName: String = "offset", limitName: String = "limit"
        ) {
            let fetchAll = endpoints.fetchAll
            endpoints.fetchAll = { resource in
                fetchAll(resource).adding(query: [
                    URLQueryItem(name: offsetName, value: "0"),
                    URLQueryItem(name: limitName, value: String(limit)),
                ])
            }
            let decodePage = coding.decodePage
            coding.decodePage = { reply, decoder in
                var page = try decodePage(reply, decoder)
                guard page.next == nil, page.entities.count >= limit else { return page }
                page.next = reply.url.replacingQueryItem(
                    offsetName,
                    by: reply.url.queryItem(offsetName).flatMap(Int.init).map { $0 + page.entities.count }
                        ?? page.entities.count)
                return page
            }
        }
    }
}

/// How ``HTTPRepository/save(_:)`` writes an entity the server may not hold yet.
///
/// Many servers' `PUT` only replaces: FastAPI's and Django REST Framework's tutorials answer
/// `404` to a `PUT` of an unknown ID, so an entity whose ID the client chose (a `UUID`) must be
/// created with `POST`. Pick the strategy in one line:
///
/// ```swift
/// configuration.saveStrategy = .putThenPostOnNotFound
/// ```
public enum HTTPSaveStrategy: Sendable, Hashable {
    /// Send ``HTTPRepository/Endpoints/save`` alone (`PUT baseURL/{id}` by default): for servers
    /// whose `PUT` creates or replaces.
    case saveEndpoint
    /// Send ``HTTPRepository/Endpoints/save``; when it answers `404` (or `410`), send the entity,
    /// with its ID, to ``HTTPRepository/Endpoints/create``. A replace costs one request, a
    /// create two.
    case putThenPostOnNotFound
    /// Send the entity, with its ID, to ``HTTPRepository/Endpoints/create``; when it answers
    /// `409 Conflict`, send ``HTTPRepository/Endpoints/save``. A create costs one request, a
    /// replace two.
    case postThenPutOnConflict
}

extension URL {
    /// The value of the first query item `name`, if any.
    func queryItem(_ name: String) -> String? {
        URLComponents(url: self, resolvingAgainstBaseURL: true)?.queryItems?.first { $0.name == name }?.value
    }

    /// This URL with the query item `name` set to `value`, in place of any it had.
    func replacingQueryItem(_ name: String, by value: Int) -> URL {
        guard var components = URLComponents(url: self, resolvingAgainstBaseURL: true) else { return self }
        var items = components.queryItems ?? []
        if let index = items.firstIndex(where: { $0.name == name }) {
            items[index].value = String(value)
        } else {
            items.append(URLQueryItem(name: name, value: String(value)))
        }
        components.queryItems = items
        return components.url ?? self
    }
}
