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
            maximumPages: Int = 10_000
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
        }
    }
}
