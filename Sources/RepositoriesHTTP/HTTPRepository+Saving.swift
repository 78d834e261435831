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
        var reply: HTTPReply
        switch configuration.saveStrategy {
        case .saveEndpoint:
            reply = try await write(save, body, readFrom: readFrom, key: key, operation)
        case .putThenPostOnNotFound:
            reply = try await write(save, body, readFrom: readFrom, key: key, operation)
            if reply.status == 404 || reply.status == 410 {
                reply = try await write(create, body, readFrom: readFrom, key: key + "-create", operation)
            }
        case .postThenPutOnConflict:
            reply = try await write(create, body, readFrom: readFrom, key: key, operation)
            if reply.status == 409 {
                reply = try await write(save, body, readFrom: readFrom, key: key + "-replace", operation)
            }
        }
        try check(reply, id: id)
        reportEcho(reply, of: entity.id)
    }

    /// Reports the entity a write's answer holds to the task's `WriteEcho`, when one
    /// listens: what the server stored, which may differ from what was sent. An answer that
    /// holds no entity of `id` (an empty body, `{"ok": true}`, a message) reports nothing:
    /// the echo is optional, and the write itself succeeded.
    func reportEcho(_ reply: HTTPReply, of id: ID) {
        guard WriteEcho.listener != nil,
            reply.body.contains(where: { ![0x20, 0x0A, 0x0D, 0x09].contains($0) })
        else { return }
        do {
            let stored = try configuration.coding.decodeEntity(reply, configuration.coding.makeDecoder())
            if stored.id == id { WriteEcho.report(stored) }
        } catch {
            // Not the entity: no echo, and nothing wrong with the write.
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
