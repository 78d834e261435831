import Foundation
import Repositories

/// `ETag` and `If-Match`: the tag of an entity's version comes with its `GET`, and a write
/// sent on it is refused (`412 Precondition Failed`, thrown as `conflict`) when the entity
/// changed on the server meanwhile. The offline-first sync uses it, so a change another
/// client makes between the sync's read and its write is not overwritten; and it creates an
/// entity the server did not hold with `If-None-Match: *` (or a `POST` that refuses a held
/// ID), so a create that lands late does not overwrite a newer write either.
extension HTTPRepository: VersionTaggingRepository {
    /// Reads the entity at its item URL with the `ETag` the server sent for it.
    ///
    /// The tag is `nil` when the server sent none, or when this configuration's save or
    /// delete does not go to the item URL (a `POST` to the collection, say), where no write
    /// can be made conditional on it.
    ///
    /// - Throws: `rejected` before any request when `id` names no single resource, else
    ///   `RepositoryError` as the type's documentation lists.
    public func fetchTagged(id: ID) async throws -> TaggedEntity<Entity>? {
        guard let tagged = try await fetchWithTag(id, operation: "fetchTagged(id:)") else { return nil }
        return canWriteConditionally(tagged.entity) ? tagged : TaggedEntity(tagged.entity, tag: nil)
    }

    /// Sends the entity to its item URL with `If-Match: tag`, whatever
    /// ``Configuration/ifMatchOnSave`` says, under the call's idempotency key.
    ///
    /// - Throws: `conflict` when the server answers `412` (the entity changed since `tag`)
    ///   or `404`/`410` (it was deleted since); `rejected` when this configuration saves to
    ///   another URL than the item's, where the condition would name another resource, or
    ///   when the entity's ID names no single resource; `encodingFailed` naming the field
    ///   (nothing sent); else `RepositoryError` as the type's documentation
    ///   lists.
    public func save(_ entity: Entity, ifMatch tag: String) async throws {
        try requireAddressable(entity.id, operation: "save(_:ifMatch:)")
        guard canWriteConditionally(entity) else {
            throw RepositoryError.rejected(
                "save(_:ifMatch:) of entity \(describe(entity.id)): this configuration saves to "
                    + "\(configuration.endpoints.save(entity, resource).url.absoluteString), not to the "
                    + "entity's item URL, so the save cannot be made conditional on the entity's tag",
                recovery: "Save to the item URL (Endpoints.save), or call save(_:) without a condition")
        }
        let body = try encodeForSending(entity)
        let readFrom = configuration.endpoints.fetch(entity.id, resource).url
        let reply = try await exchange(
            configuration.endpoints.save(entity, resource), body: body, tagKey: readFrom, ifMatchTag: tag,
            idempotencyKey: Self.callKey(), operation: "save(_:ifMatch:)")
        if reply.status == 404 || reply.status == 410 {
            throw RepositoryError.conflict(
                "save(_:ifMatch:) of entity \(describe(entity.id)): the server answered \(reply.status); "
                    + "the entity was deleted since its tag was read",
                id: describe(entity.id))
        }
        try check(reply, id: describe(entity.id))
        reportEcho(reply, of: entity.id)
    }

    /// Creates the entity only if the server holds no copy of its ID, under the call's
    /// idempotency key, by one request that never replaces:
    ///
    /// - when ``Configuration/saveStrategy`` is ``HTTPSaveStrategy/saveEndpoint`` and the save
    ///   goes to the item URL (`PUT baseURL/{id}`, the default), that request with
    ///   `If-None-Match: *`, which a server answers `412` when it holds the item;
    /// - otherwise (a `PUT` that only replaces, a `POST` first, or a save to another URL, such
    ///   as PostgREST's upsert), the entity, with its ID, to ``Endpoints/create`` alone, which
    ///   a server answers `409` when it holds the ID (PostgREST's insert does, and so does a
    ///   FastAPI app that checks for one). The save's `PUT` or upsert never follows it.
    ///
    /// A server that ignores `If-None-Match` on a `PUT` that creates, or whose create replaces
    /// an ID it holds, writes over its copy: no request can stop that.
    ///
    /// - Throws: `conflict` when the server answers `412` (or `304`) to the condition, or
    ///   `409` to the create: it holds a copy, and nothing was written; `rejected` when the
    ///   entity's ID names no single resource, and `encodingFailed` naming the field, both
    ///   before any request; else `RepositoryError` as the type's documentation lists.
    public func saveIfAbsent(_ entity: Entity) async throws {
        let operation = "saveIfAbsent(_:)"
        try requireAddressable(entity.id, operation: operation)
        let body = try encodeForSending(entity)
        let readFrom = configuration.endpoints.fetch(entity.id, resource).url
        let save = configuration.endpoints.save(entity, resource)
        let key = Self.callKey()
        let reply: HTTPReply
        if configuration.saveStrategy == .saveEndpoint && save.url == readFrom {
            reply = try await exchange(
                save, body: body, tagKey: readFrom, ifNoneMatch: "*", idempotencyKey: key,
                operation: operation)
        } else {
            // The key a save's create request carries, so a server that took that request
            // answers this one from its record.
            let createKey = configuration.saveStrategy == .putThenPostOnNotFound ? key + "-create" : key
            reply = try await exchange(
                configuration.endpoints.create(entity, resource), body: body, tagKey: readFrom,
                idempotencyKey: createKey, operation: operation)
        }
        if [304, 409, 412].contains(reply.status) {
            var error = HTTPStatusMapping.error(for: reply, id: describe(entity.id)) ?? .conflict("")
            error.code = .conflict
            error.reason =
                "\(operation) of entity \(describe(entity.id)): \(reply.method) \(reply.url.absoluteString) "
                + "answered \(reply.status)\(HTTPStatusMapping.phrase(reply.status)): the server holds a copy "
                + "of it already, so nothing was written"
                + (reply.body.isEmpty ? "" : "; the server said: \(reply.bodyExcerpt())")
            error.recovery = "Read the server's copy and settle the two, then save on its version"
            throw error
        }
        try check(reply, id: describe(entity.id))
        reportEcho(reply, of: entity.id)
    }

    /// Deletes the entity at its item URL with `If-Match: tag`; a `404` or `410` counts as
    /// done.
    ///
    /// - Throws: `conflict` when the server answers `412` (the entity changed since `tag`);
    ///   `rejected` before any request when `id` names no single resource; else
    ///   `RepositoryError` as the type's documentation lists.
    public func delete(id: ID, ifMatch tag: String) async throws {
        try requireAddressable(id, operation: "delete(id:ifMatch:)")
        let readFrom = configuration.endpoints.fetch(id, resource).url
        let reply = try await exchange(
            configuration.endpoints.delete(id, resource), tagKey: readFrom, ifMatchTag: tag,
            idempotencyKey: Self.callKey(), operation: "delete(id:ifMatch:)")
        if reply.status == 404 || reply.status == 410 { return }
        try check(reply, id: describe(id))
    }

    /// Reads `id` at its item URL, keeping the reply's `ETag`.
    func fetchWithTag(_ id: ID, operation: String) async throws -> TaggedEntity<Entity>? {
        try requireAddressable(id, operation: operation)
        let endpoint = configuration.endpoints.fetch(id, resource)
        let reply = try await exchange(endpoint, operation: operation)
        if reply.status == 404 || reply.status == 410 { return nil }
        try check(reply, id: describe(id))
        let entity: Entity
        do {
            entity = try decode(
                reply, as: "\(Entity.self)", record: describe(id), configuration.coding.decodeEntity)
        } catch let error as RepositoryError where error.code == .notFound {
            // The decoding hook found no entity in the answer (an empty list for a filter).
            return nil
        }
        return TaggedEntity(entity, tag: reply.header("ETag") ?? etags.tag(for: endpoint.url))
    }

    /// Whether a save and a delete of `entity` both go to the URL it is read from, so
    /// `If-Match` there names its version.
    private func canWriteConditionally(_ entity: Entity) -> Bool {
        let item = configuration.endpoints.fetch(entity.id, resource).url
        return configuration.endpoints.save(entity, resource).url == item
            && configuration.endpoints.delete(entity.id, resource).url == item
    }
}
