import Foundation
import Repositories

extension HTTPRepository {
    /// Sends one save of `entity` with its encoded `body`, as ``Configuration/saveStrategy``
    /// says, each request carrying its idempotency key (`key`, then `key-create` or
    /// `key-replace` for the second request).
    func send(_ entity: Entity, body: Data, key: String, operation: String) async throws {
        let id = describe(entity.id)
        let save = configuration.endpoints.save(entity, resource)
        let create = configuration.endpoints.create(entity, resource)
        let readFrom = configuration.endpoints.fetch(entity.id, resource).url
        switch configuration.saveStrategy {
        case .saveEndpoint:
            try check(await write(save, body, readFrom: readFrom, key: key, operation), id: id)
        case .putThenPostOnNotFound:
            let reply = try await write(save, body, readFrom: readFrom, key: key, operation)
            guard reply.status == 404 || reply.status == 410 else { return try check(reply, id: id) }
            try check(await write(create, body, readFrom: readFrom, key: key + "-create", operation), id: id)
        case .postThenPutOnConflict:
            let reply = try await write(create, body, readFrom: readFrom, key: key, operation)
            guard reply.status == 409 else { return try check(reply, id: id) }
            try check(await write(save, body, readFrom: readFrom, key: key + "-replace", operation), id: id)
        }
    }

    /// One write request of a save.
    private func write(
        _ endpoint: HTTPEndpoint, _ body: Data, readFrom: URL, key: String, _ operation: String
    ) async throws -> HTTPReply {
        // A precondition is about the request's target: only a write to the URL the entity is
        // read from (PUT or PATCH to the item) can carry the entity's tag.
        try await exchange(
            endpoint, body: body, tagKey: readFrom, ifMatch: endpoint.url == readFrom, idempotencyKey: key,
            operation: operation)
    }

    /// Deletes `id`, sending `key` as the request's idempotency key.
    func delete(_ id: ID, key: String, operation: String) async throws {
        let endpoint = configuration.endpoints.delete(id, resource)
        let readFrom = configuration.endpoints.fetch(id, resource).url
        let reply = try await exchange(endpoint, tagKey: readFrom, idempotencyKey: key, operation: operation)
        if reply.status == 404 || reply.status == 410 { return }
        try check(reply, id: describe(id))
    }
}
