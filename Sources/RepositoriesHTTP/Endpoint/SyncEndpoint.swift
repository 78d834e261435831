import Foundation
import Repositories

/// The server half of sync, in Swift: serves a store's change feed and applies writes once
/// per idempotency key, as plain request and response values, so any web framework can
/// mount it and an `HTTPRepository` with `changeFeed = .changesEndpoint()` syncs with it.
///
/// ```swift
/// let notes = try await PostgresRepository<Note>(connectionString: url, options: .init(tableName: "notes"))
/// let endpoint = SyncEndpoint(store: notes)
///
/// // In any framework's route for everything under /notes:
/// let asked = SyncRequest(method: method, target: target, below: "/notes", headers: headers, body: body)
/// let answer = await endpoint.respond(to: asked!)   // answer.status, answer.headers, answer.body
/// ```
///
/// Docs/SyncServer.md mounts it in Vapor.
///
/// What it serves, below the collection's path (Docs/HTTP.md's conventions):
///
/// | request | answer |
/// |---|---|
/// | `GET` | every entity, a JSON array (`?offset=&limit=` for a page); with the lookup convention's parameters (`points__lt=500&order_by=-points`), the entities the query selects, run by the store (`HTTPQueryConvention.lookups(…)`; `400` for a field the entity does not declare) |
/// | `GET /changes?since=&limit=` | the change feed's page; `410` for a cursor too old; with the lookup convention's conditions (`owner=ana`), the page of that subset: its entities saved, every other ID changed after the cursor deleted |
/// | `GET /{id}` | the entity, or `404` |
/// | `PUT /{id}` | saves it: `201` created, `200` replaced, the entity stored as the body; with `If-None-Match: *`, `412` when the ID is held |
/// | `POST` | creates it (the body carries its ID): `201`, or `409` when the ID is held |
/// | `DELETE /{id}` | `204`, or `404` when there was none |
///
/// Every write goes through `IdempotentWriteRepository.apply(_:idempotencyKey:fingerprint:)`
/// with the request's `Idempotency-Key` (a key of its own when it has none), so the key is
/// kept in the write's transaction: a request sent again, after a lost answer or a restart of
/// the service, is answered as the first time and applied once; a key reused for another
/// request answers `422`. A body that is not the entity answers `400` or `422` naming the
/// field; a store that cannot be reached `503`.
public struct SyncEndpoint<Store: ChangeFeedRepository & IdempotentWriteRepository>: Sendable
where Store.Entity: Codable, Store.ID: Codable {
    /// The store behind the endpoint.
    public let store: Store
    /// The most changes or entities one page answers, whatever the client asks.
    public let maximumPageSize: Int
    let makeEncoder: @Sendable () -> JSONEncoder
    let makeDecoder: @Sendable () -> JSONDecoder
    let idFromPath: @Sendable (String) -> Store.ID?

    /// An endpoint over `store`.
    ///
    /// - Parameters:
    ///   - store: a store with a change feed and idempotent writes (`PostgresRepository`,
    ///     `InMemoryRepository`).
    ///   - maximumPageSize: the most IDs a page of changes or of the collection answers.
    ///   - makeEncoder: the JSON encoder of answers: ISO 8601 dates by default, as
    ///     `HTTPRepository` reads them.
    ///   - makeDecoder: the JSON decoder of request bodies, ISO 8601 dates by default.
    ///   - idFromPath: reads an ID from its path segment (unescaped); the default reads a
    ///     `String`, an integer, a `UUID`, or else the segment as a JSON string.
    public init(
        store: Store, maximumPageSize: Int = 1_000,
        makeEncoder: @escaping @Sendable () -> JSONEncoder = HTTPRepository<Store.Entity>.Coding
            .iso8601Encoder,
        makeDecoder: @escaping @Sendable () -> JSONDecoder = HTTPRepository<Store.Entity>.Coding
            .iso8601Decoder,
        idFromPath: @escaping @Sendable (String) -> Store.ID? = SyncEndpoint.defaultID
    ) {
        self.store = store
        self.maximumPageSize = max(1, maximumPageSize)
        self.makeEncoder = makeEncoder
        self.makeDecoder = makeDecoder
        self.idFromPath = idFromPath
    }

    /// Answers `request`; never throws: every failure is a status with a JSON `detail`.
    public func respond(to request: SyncRequest) async -> SyncResponse {
        do {
            return try await route(request)
        } catch let error as RepositoryError {
            return Self.response(for: error)
        } catch is CancellationError {
            return .problem(503, "The request was cancelled before it finished; send it again")
        } catch {
            return .problem(500, "\(error)")
        }
    }

    private func route(_ request: SyncRequest) async throws -> SyncResponse {
        var segments = request.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        let method = request.method.uppercased()
        switch (method, segments.count) {
        case ("GET", 0): return try await list(request)
        case ("POST", 0): return try await write(request, path: "")
        case (_, 1) where segments[0] == "changes" && method == "GET": return try await changes(request)
        case ("GET", 1), ("PUT", 1), ("DELETE", 1):
            let segment = segments.removeFirst()
            guard let id = idFromPath(segment.removingPercentEncoding ?? segment) else {
                return .problem(404, "No entity is named \(segment): it is not an ID of this collection")
            }
            if method == "GET" { return try await read(id) }
            return try await write(request, path: "/" + segment, id: id)
        case (_, 0), (_, 1):
            return SyncResponse(
                status: 405, headers: ["Allow": segments.isEmpty ? "GET, POST" : "GET, PUT, DELETE"])
        default:
            return .problem(404, "No resource at \(request.path)")
        }
    }

    // MARK: Reading

    /// A page of the collection, or of a query in the lookup convention, run by the store
    /// where it keeps the data (SQL in `PostgresRepository`).
    private func list(_ request: SyncRequest) async throws -> SyncResponse {
        var query: Query<Store.Entity>
        switch lookups(in: request.query) {
        case .success(let asked): query = asked
        case .failure(let refusal): return .problem(400, refusal.detail)
        }
        query.offset = max(0, request.queryItem("offset").flatMap(Int.init) ?? 0)
        query.limit = request.queryItem("limit").flatMap(Int.init).map { min(max(0, $0), maximumPageSize) }
        return .json(200, try encode(try await store.fetch(query)))
    }

    private func read(_ id: Store.ID) async throws -> SyncResponse {
        guard let entity = try await store.fetch(id: id) else {
            return .problem(404, "No entity has the ID \(id)")
        }
        return .json(200, try encode(entity))
    }

    /// The query the lookup convention's parameters among `items` ask for (an empty query
    /// when there are none), or the refusal of a parameter that names no declared field.
    private func lookups(in items: [URLQueryItem]) -> Result<
        Query<Store.Entity>, LookupQuery<Store.Entity>.Refusal
    > {
        guard let fields = DeclaredFields.of(Store.Entity.self) else {
            if let parameter = items.first(where: { !LookupQuery<Store.Entity>.reserved.contains($0.name) }) {
                return .failure(
                    .init(
                        detail:
                            "\(Store.Entity.self) declares no queryable fields; \(parameter.name) cannot filter it"
                    ))
            }
            return .success(Query())
        }
        do {
            return .success(try LookupQuery.parse(items, fields: fields) ?? Query())
        } catch let refusal as LookupQuery<Store.Entity>.Refusal {
            return .failure(refusal)
        } catch {
            return .failure(.init(detail: "\(error)"))
        }
    }

    /// A page of the change feed; with the lookup convention's conditions (those it can read;
    /// any other is skipped), the page a reader holding only the entities that meet them
    /// needs: those among `saved`, and the ID of every other entity changed after the cursor
    /// among `deleted`, so the reader removes what left its subset
    /// (`ChangeFeedRepository.changes(since:limit:in:)`).
    private func changes(_ request: SyncRequest) async throws -> SyncResponse {
        let asked = request.queryItem("limit")
        guard let limit = asked.map(Int.init) ?? 100, limit > 0 else {
            return .problem(400, "limit must be a positive integer, not \(asked ?? "")")
        }
        let cursor = request.queryItem("since").map(SyncCursor.init)
        guard request.queryItem("order_by") == nil, request.queryItem("offset") == nil else {
            return .problem(400, "A page of changes takes conditions only: no order_by and no offset")
        }
        // A condition this server cannot read is skipped, not refused: the reader checks every
        // page against its subset, so the page is only larger.
        var subset = Query<Store.Entity>()
        for item in request.query where !["since", "limit"].contains(item.name) {
            if case .success(let asked) = lookups(in: [item]) {
                subset = asked.conditions.reduce(subset) { $0.requiring($1) }
            }
        }
        let page: ChangePage<Store.Entity, Store.ID>
        do {
            let size = min(limit, maximumPageSize)
            page =
                subset.conditions.isEmpty
                ? try await store.changes(since: cursor, limit: size)
                : try await store.changes(since: cursor, limit: size, in: subset)
        } catch let error as RepositoryError where error.code == .cursorExpired {
            return .problem(
                410, "The cursor is too old, or not this server's: read from the start. \(error.reason)")
        }
        let answer = FeedPage(
            saved: page.saved, deleted: page.deleted, next: page.next.token, more: page.hasMore)
        return .json(200, try encode(answer))
    }

    // MARK: Writing

    private func write(_ request: SyncRequest, path: String, id: Store.ID? = nil) async throws -> SyncResponse
    {
        let method = request.method.uppercased()
        let write: KeyedWrite<Store.Entity, Store.ID>
        if method == "DELETE", let id {
            write = .delete(id)
        } else {
            let entity: Store.Entity
            do {
                entity = try makeDecoder().decode(Store.Entity.self, from: request.body)
            } catch let error as DecodingError {
                return Self.refusal(error)
            }
            if let id, entity.id != id {
                return .problem(422, "The body's id (\(entity.id)) is not the path's (\(id))")
            }
            let createOnly =
                method == "POST"
                || request.header("If-None-Match")?.trimmingCharacters(in: .whitespaces) == "*"
            write = createOnly ? .create(entity) : .save(entity)
        }
        let fingerprint = "\(method) \(path)"
        let key = request.header("Idempotency-Key") ?? "unkeyed-" + UUID().uuidString
        let result = try await store.apply(write, idempotencyKey: key, fingerprint: fingerprint)
        guard result.fingerprint == fingerprint else {
            return .problem(
                422,
                "The Idempotency-Key \(key) was used on another request (\(result.fingerprint)); use a new key"
            )
        }
        var response: SyncResponse
        switch result.outcome {
        case .created: response = .json(201, try encode(result.stored))
        case .replaced: response = .json(200, try encode(result.stored))
        case .deleted: response = SyncResponse(status: 204)
        case .absent: response = .problem(404, "No entity had that ID; nothing was deleted")
        case .alreadyExists:
            response = .problem(
                method == "POST" ? 409 : 412, "An entity with that ID exists already; nothing was written")
        }
        if result.replayed { response.headers["Idempotent-Replayed"] = "true" }
        return response
    }

    // MARK: Coding and errors

    private func encode<Value: Encodable>(_ value: Value) throws -> Data {
        do {
            return try makeEncoder().encode(value)
        } catch {
            throw RepositoryError(
                .encodingFailed, reason: "The endpoint could not encode its answer: \(error)",
                underlying: error)
        }
    }

    /// `400` for a body that is not JSON, `422` naming the field for JSON that is not the entity.
    static func refusal(_ error: DecodingError) -> SyncResponse {
        switch error {
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            return .problem(400, "The body is not JSON: \(context.debugDescription)")
        case .keyNotFound(let key, let context):
            return .problem(422, "The field \(path(context.codingPath + [key])) is missing")
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return .problem(
                422, "The field \(path(context.codingPath)) is not valid: \(context.debugDescription)")
        @unknown default:
            return .problem(422, "The body is not a valid entity: \(error)")
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }

    /// The status a store's error stands for.
    static func response(for error: RepositoryError) -> SyncResponse {
        switch error.code {
        case .unavailable, .timedOut, .circuitOpen, .closed, .locked:
            var response = SyncResponse.problem(503, error.reason)
            if let retryAfter = error.retryAfter {
                response.headers["Retry-After"] = String(retryAfter.components.seconds)
            }
            return response
        case .rejected, .encodingFailed: return .problem(422, error.reason)
        case .conflict: return .problem(409, error.reason)
        default: return .problem(500, error.reason)
        }
    }

    /// The default ``init(store:maximumPageSize:makeEncoder:makeDecoder:idFromPath:)``
    /// reading of an ID: a `String` as it is, an integer, a `UUID`, else the segment as a JSON
    /// string.
    @Sendable public static func defaultID(_ segment: String) -> Store.ID? {
        if let id = segment as? Store.ID { return id }
        if Store.ID.self == Int.self { return Int(segment) as? Store.ID }
        if Store.ID.self == Int64.self { return Int64(segment) as? Store.ID }
        if Store.ID.self == UUID.self { return UUID(uuidString: segment) as? Store.ID }
        let quoted = (try? JSONEncoder().encode(segment)) ?? Data()
        return try? JSONDecoder().decode(Store.ID.self, from: quoted)
    }
}

/// A page of changes as the feed convention writes it.
private struct FeedPage<Entity: Encodable, ID: Encodable>: Encodable {
    var saved: [Entity]
    var deleted: [ID]
    var next: String
    var more: Bool
}
