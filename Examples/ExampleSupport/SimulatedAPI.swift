import Foundation
import Repositories
import RepositoriesHTTP

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The simulated API as a web server in process: an `HTTPTransport` that answers the
/// requests `HTTPRepository` makes by default from an `InMemoryRepository`, and refuses a
/// write that breaks one of its ``APIValidation`` rules the way FastAPI or Django REST
/// Framework do. The app's `HTTPRepository` reads that answer as it reads a real server's:
/// the refusal is `rejected`, with the status in `httpStatus` and the messages in
/// `fieldErrors`.
///
/// | request | answer |
/// |---|---|
/// | `GET` the collection | `200`, every entity as a JSON array, in the store's order |
/// | `GET` an item | `200` and the entity, or `404` |
/// | `PUT` an item | `200` and the entity as saved; the validation's refusal when it breaks a rule (nothing saved); `400` when the body is not the entity, or names another ID |
/// | `DELETE` an item | `204`, or `404` when there is none |
/// | anything else | `405` |
///
/// Items are named as `HTTPRepository` names them by default (`collection/{id}`), and the
/// JSON is its default coding's. Idempotency keys are not kept: in process, no answer is
/// lost.
public struct SimulatedAPI<Entity: Codable & Identifiable & Sendable>: HTTPTransport
where Entity.ID: Codable & Sendable {
    /// What the API holds.
    public let store: InMemoryRepository<Entity>
    /// The collection's URL and its items'.
    public let resource: HTTPRepository<Entity>.Resource
    /// What a write must pass.
    public let validation: APIValidation<Entity>

    /// The API of `store` at `collection`, checking writes against `validation`.
    public init(store: InMemoryRepository<Entity>, collection: URL, validation: APIValidation<Entity>) {
        self.store = store
        self.resource = HTTPRepository<Entity>.Resource(
            collection: collection, pathSegment: HTTPRepository<Entity>.Resource.defaultPathSegment)
        self.validation = validation
    }

    /// Answers `request` from the store, as the table in the type's documentation says.
    ///
    /// - Throws: `CancellationError` when the task was cancelled before the answer.
    public func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        try Task.checkCancellation()
        guard let url = request.url else {
            throw RepositoryError.rejected("The simulated API was sent a request without a URL")
        }
        let (status, body) = try await answer(request, at: url)
        let headers = body.isEmpty ? [:] : ["Content-Type": "application/json"]
        guard
            let response = HTTPURLResponse(
                url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)
        else {
            throw RepositoryError.unavailable(
                "The simulated API could not make an answer for \(url.absoluteString)")
        }
        return (body, response)
    }

    /// The status and body answering `request`.
    private func answer(_ request: URLRequest, at url: URL) async throws -> (Int, Data) {
        let method = request.httpMethod?.uppercased() ?? "GET"
        let coding = HTTPRepository<Entity>.Coding()
        if url.absoluteString == resource.collection.absoluteString {
            guard method == "GET" else { return (405, Data()) }
            return (200, try coding.makeEncoder().encode(try await store.fetchAll()))
        }
        switch method {
        case "GET":
            guard let entity = try await entity(at: url) else { return (404, Data()) }
            return (200, try coding.makeEncoder().encode(entity))
        case "PUT":
            return try await put(request.httpBody ?? Data(), at: url, coding: coding)
        case "DELETE":
            guard let entity = try await entity(at: url) else { return (404, Data()) }
            try await store.delete(id: entity.id)
            return (204, Data())
        default:
            return (405, Data())
        }
    }

    /// Saves the entity `body` holds at `url`, unless it breaks a rule.
    private func put(_ body: Data, at url: URL, coding: HTTPRepository<Entity>.Coding) async throws -> (
        Int, Data
    ) {
        let entity: Entity
        let object: [String: Any]
        do {
            entity = try coding.makeDecoder().decode(Entity.self, from: body)
            object = try JSONSerialization.jsonObject(with: body) as? [String: Any] ?? [:]
        } catch {
            return (400, try Self.detail("The body is not a \(Entity.self): \(error)"))
        }
        guard resource.item(entity.id).absoluteString == url.absoluteString else {
            return (400, try Self.detail("The body's id names another item than \(url.absoluteString)"))
        }
        let broken = validation.broken(by: entity)
        guard broken.isEmpty else {
            return (validation.format.status, try validation.format.body(refusing: broken, sent: object))
        }
        try await store.save(entity)
        return (200, body)
    }

    /// The stored entity whose item URL is `url`, if any.
    private func entity(at url: URL) async throws -> Entity? {
        try await store.fetchAll().first { resource.item($0.id).absoluteString == url.absoluteString }
    }

    /// `{"detail": message}`, the body of a refusal that concerns no field.
    private static func detail(_ message: String) throws -> Data {
        try JSONEncoder().encode(["detail": message])
    }
}
