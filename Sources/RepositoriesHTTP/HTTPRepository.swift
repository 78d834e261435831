import Foundation
import Repositories

/// A REST resource as a `Repository`: each operation is one or more HTTP
/// requests to a collection URL and its items.
///
/// ```swift
/// let todos = HTTPRepository<Todo>(baseURL: URL(string: "https://api.example.com/todos")!)
/// let todo = try await todos.fetch(id: 1)          // GET    /todos/1   (404 → nil)
/// try await todos.save(todo)                       // PUT    /todos/1
/// try await todos.delete(id: 1)                    // DELETE /todos/1   (404 → done)
/// let all = try await todos.fetchAll()             // GET    /todos     (pages followed)
/// ```
///
/// It slots in as the remote of `fallback(to:)` and `cached(in:)`, and under `.retrying`,
/// which honours the `Retry-After` it reports and keeps one idempotency key across attempts.
///
/// For a back-end with conventions of its own, start from its preset:
/// `HTTPRepository<Note>(baseURL: url, configuration: .djangoREST())` (also `.fastAPI()`,
/// `.rails()`, `.jsonServer()`, `.postgREST(apiKey:)`). An entity whose ID the server assigns
/// is created with ``create(_:)``, which returns what the server stored.
///
/// ## Conventions, and adapting them
///
/// By default the collection is a JSON array at `baseURL`, an entity is the JSON object at
/// `baseURL/{id}` (the ID written as one path segment: see ``Configuration/idPath``), saves
/// are `PUT`s, and a `Link: <…>; rel="next"` header leads to the next page. Every request
/// (``Endpoints``), every body (``Coding``), the headers, the token and the timeout are
/// configurable through ``Configuration``; the network client is an ``HTTPTransport``.
///
/// ## Errors
///
/// Every failure is a `RepositoryError` whose `location` is the URL:
/// `401`/`403` and other 4xx are `rejected` (quoting the start of the body); `409`/`412`
/// are `conflict`; `429`, `503` and other 5xx are `unavailable`, with `Retry-After` (seconds
/// or an HTTP-date) in `retryAfter`; a body that does not decode is `decodingFailed` with
/// an excerpt; a refused connection, an unknown host or a dropped connection is
/// `unavailable`; a request that runs past ``Configuration/timeout`` is `timedOut`.
/// A task cancelled before a request leaves never sends it, and throws `CancellationError`.
/// Cancelling a read on the wire stops it; a write on the wire runs to its answer (or to the
/// timeout) and the call reports what the server did, since the server may apply it
/// whatever the client does.
///
/// ## ETags
///
/// When the server sends an `ETag`, the next `GET` of that URL carries `If-None-Match`,
/// and a `304 Not Modified` is answered with the body last received. With
/// ``Configuration/ifMatchOnSave`` a save carries `If-Match` with the tag last seen for the
/// item, so a lost update surfaces as `conflict` instead of overwriting another client's
/// change.
///
/// ## Batches are not atomic
///
/// Plain REST has no transaction, so ``save(contentsOf:)`` cannot be all or nothing: it
/// encodes every entity first (an entity that cannot be encoded fails the batch before
/// anything is sent), then `PUT`s them in order and stops at the first failure, whose
/// error says which entity failed and which were already saved. An API with a bulk
/// endpoint can make batches atomic: set ``Endpoints/saveBatch``.
///
/// ## Values refused before the wire
///
/// An ID that names no single resource (empty, `.`, `..`, or with a `.` or `..` between
/// slashes, which a server that decodes `%2F` resolves to another path) is refused with
/// `rejected` by every operation that addresses an entity, batches included, before any
/// request: `DELETE /todos/` would address the whole collection. An entity that cannot be
/// encoded, such as one with a date RFC 3339 cannot write (not finite, or outside the years
/// 0000 to 9999), fails with `encodingFailed` naming its ID and the field, and nothing is
/// sent.
///
/// ## Topics
///
/// ### Creating a repository
/// - ``init(baseURL:configuration:transport:)``
/// - ``init(baseURL:transport:configure:)``
/// - ``Configuration``
/// - ``Endpoints``
/// - ``Coding``
/// - ``Resource``
///
/// ### Syncing only what changed
/// - ``ChangeFeed``
/// - ``changes(since:limit:)``
/// - ``servesChangeFeed``
public struct HTTPRepository<Entity: Codable & Identifiable & Sendable>: Repository
where Entity.ID: Codable & Sendable {
    /// The entity's ID type.
    public typealias ID = Entity.ID

    /// The collection URL and how item URLs are made from it.
    public let resource: Resource
    /// The endpoints, coders, headers and timeout in use.
    public let configuration: Configuration
    /// The client the requests go through.
    public let transport: any HTTPTransport
    let etags: ETagCache

    /// The collection's URL.
    public var baseURL: URL { resource.collection }

    /// A repository of the REST collection at `baseURL`.
    ///
    /// - Parameters:
    ///   - baseURL: the collection, such as `https://api.example.com/todos`. A query string is
    ///     kept on every URL made from it.
    ///   - configuration: endpoints, coders, headers, token and timeout; the REST defaults
    ///     when omitted.
    ///   - transport: the HTTP client; a shared `URLSession` when omitted.
    public init(
        baseURL: URL, configuration: Configuration = Configuration(),
        transport: any HTTPTransport = URLSessionTransport()
    ) {
        self.resource = Resource(
            collection: baseURL, pathSegment: configuration.idPath, trailingSlash: configuration.trailingSlash
        )
        self.configuration = configuration
        self.transport = transport
        self.etags = ETagCache(capacity: configuration.etagCapacity)
    }

    /// A repository of the REST collection at `baseURL`, configured in place.
    ///
    /// ```swift
    /// let todos = HTTPRepository<Todo>(baseURL: url) { configuration in
    ///     configuration.timeout = .seconds(5)
    ///     configuration.tokenProvider = { try await session.accessToken() }
    /// }
    /// ```
    public init(
        baseURL: URL, transport: any HTTPTransport = URLSessionTransport(),
        configure: (inout Configuration) -> Void
    ) {
        var configuration = Configuration()
        configure(&configuration)
        self.init(baseURL: baseURL, configuration: configuration, transport: transport)
    }

    /// Reads the entity at its item URL (`GET baseURL/{id}` by default).
    ///
    /// - Returns: the entity, or `nil` when the server answers `404 Not Found` or `410 Gone`.
    /// - Throws: `rejected` before any request when `id` names no single resource (empty,
    ///   `.`, `..`, or a `.` or `..` between slashes); else `RepositoryError` as the type's
    ///   documentation lists.
    public func fetch(id: ID) async throws -> Entity? {
        try await fetchWithTag(id, operation: "fetch(id:)")?.entity
    }

    /// Reads the whole collection (`GET baseURL` by default), following the next-page link
    /// of each page to the end, in the server's order.
    ///
    /// Pages are separate requests, so an entity saved or deleted while they are read may
    /// be missed or seen twice; the server's order decides what `fetchAll` returns.
    ///
    /// - Throws: `RepositoryError` as the type's documentation lists;
    ///   `corrupted` when the pages link back to one already read or exceed
    ///   ``Configuration/maximumPages``.
    /// - Complexity: one request per page.
    public func fetchAll() async throws -> [Entity] {
        var endpoint = configuration.endpoints.fetchAll(resource)
        var entities: [Entity] = []
        var visited: Set<URL> = []
        while true {
            try Task.checkCancellation()
            visited.insert(endpoint.url)
            let reply = try await exchange(endpoint, operation: "fetchAll()")
            try check(reply)
            let page = try decode(
                reply, as: "a page of \(Entity.self) values", record: "page \(visited.count)",
                configuration.coding.decodePage)
            entities += page.entities
            guard let next = page.next else { return entities }
            if visited.contains(next) || visited.count >= configuration.maximumPages {
                var error = RepositoryError.corrupted(
                    visited.contains(next)
                        ? "Page \(visited.count) of the collection links back to \(next.absoluteString), already read"
                        : "The collection has more than \(configuration.maximumPages) pages",
                    location: reply.url.absoluteString)
                error.recovery =
                    "Check the API's paging and the decodePage hook, or raise Configuration.maximumPages"
                throw error
            }
            endpoint = HTTPEndpoint(method: "GET", url: next, headers: endpoint.headers)
        }
    }

    /// Sends the entity to its item URL (`PUT baseURL/{id}` by default), with `If-Match`
    /// when ``Configuration/ifMatchOnSave`` is on and a tag is known, and then, when
    /// ``Configuration/saveStrategy`` says so, to ``Endpoints/create``.
    ///
    /// The request carries the call's idempotency key (see
    /// ``Configuration/idempotencyKeyHeader``).
    ///
    /// - Throws: `rejected` when the entity's ID names no single resource, and
    ///   `encodingFailed` naming the field that cannot be encoded (a date RFC 3339 cannot
    ///   write, say), both before any request; else `RepositoryError` as the type's
    ///   documentation lists; `conflict` when `If-Match` failed.
    public func save(_ entity: Entity) async throws {
        try requireAddressable(entity.id, operation: "save(_:)")
        let body = try encodeForSending(entity)
        try await send(entity, body: body, key: Self.callKey(), operation: "save(_:)")
    }

    /// Deletes the entity at its item URL (`DELETE baseURL/{id}` by default); a `404` or
    /// `410` counts as done.
    ///
    /// - Throws: `rejected` before any request when `id` names no single resource, else
    ///   `RepositoryError` as the type's documentation lists.
    public func delete(id: ID) async throws {
        try requireAddressable(id, operation: "delete(id:)")
        try await delete(id, key: Self.callKey(), operation: "delete(id:)")
    }

    /// Counts with ``Endpoints/count`` when one is set, else counts ``fetchAll()``.
    ///
    /// - Throws: `RepositoryError` as the type's documentation lists.
    public func count() async throws -> Int {
        guard let count = configuration.endpoints.count else { return try await fetchAll().count }
        let reply = try await exchange(count(resource), operation: "count()")
        try check(reply)
        return try decode(reply, as: "a count", record: "count", configuration.coding.decodeCount)
    }

    /// The text an error uses for `id`.
    func describe(_ id: ID) -> String {
        String(describing: id)
    }
}
