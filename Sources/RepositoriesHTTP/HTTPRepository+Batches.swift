import Foundation
import Repositories

extension HTTPRepository {
    /// Saves `entities`: in one request when ``Endpoints/saveBatch`` is set, else one save
    /// per entity, in order. **Not atomic without a bulk endpoint.**
    ///
    /// Without a bulk endpoint every entity is sent, in order, even two with one ID: an
    /// upsert server ends with the later in the place of the first, and a batch of new
    /// entities with the placeholder ID `0` creates every one of them (to read back the IDs
    /// the server gave them, use ``create(contentsOf:)``). In a bulk request, two entities
    /// with one ID whose save replaces what the ID names (not a `POST`, or a `POST` that asks
    /// to merge duplicates, as PostgREST's upsert does) are sent as one, the later in the
    /// place of the first, since a server may refuse a bulk write that names a row twice;
    /// creates (any other `POST`) are never merged.
    ///
    /// Each request carries an `Idempotency-Key`: a bulk request the call's key; a save of
    /// one entity its own key when the caller gave one per entity
    /// (`IdempotencyKey.perEntity`, as the offline-first sync does, so a change resent alone
    /// or in another batch is the request the server already saw), else the call's key with
    /// the entity's position.
    ///
    /// Every entity is encoded before anything is sent, so an entity that cannot be encoded
    /// fails the batch with `encodingFailed` and nothing is saved. After that:
    ///
    /// - with ``Endpoints/saveBatch``, the batch is one request: saved whole or not at all,
    ///   as far as the server keeps that promise;
    /// - without it, the saves go out one by one and the first failure stops the batch. Its
    ///   error keeps the failure's code (so `.retrying` still knows a transient one; saving
    ///   the batch again is safe, since saves are upserts), names the entity that failed in
    ///   `id`, and says in `reason` how many, and which, were saved before it: they stay
    ///   saved.
    ///
    /// Every ID is checked first too: one that names no single resource fails the batch with
    /// `rejected` before any request.
    ///
    /// - Complexity: one request, or one per entity sent.
    public func save(contentsOf entities: [Entity]) async throws {
        guard !entities.isEmpty else { return }
        try requireAddressable(entities.map(\.id), operation: "save(contentsOf:)")
        let key = Self.callKey()
        if let saveBatch = configuration.endpoints.saveBatch {
            let batch = mergingReplacements(entities)
            let body: Data
            do {
                body = try configuration.coding.encodeBatch(batch, configuration.coding.makeEncoder())
            } catch {
                throw firstEncodingFailure(
                    in: batch, fallback: RepositoryError.encodingFailed(id: nil, underlying: error), encode)
            }
            let reply = try await exchange(
                saveBatch(batch, resource), body: body, idempotencyKey: key, operation: "save(contentsOf:)")
            try check(reply)
            return
        }
        let batch = entities
        let bodies = try batch.map { ($0, try encodeForSending($0)) }
        var saved: [ID] = []
        for (index, (entity, body)) in bodies.enumerated() {
            do {
                try Task.checkCancellation()
                let itemKey = IdempotencyKey.forEntity(entity.id) ?? "\(key)-\(index + 1)"
                try await send(entity, body: body, key: itemKey, operation: "save(contentsOf:)")
            } catch var error as RepositoryError {
                error.id = describe(entity.id)
                error.reason =
                    "save(contentsOf:) stopped at entity \(describe(entity.id)), \(saved.count + 1) of \(batch.count): "
                    + error.reason + ". " + Self.alreadyDone("saved", saved.map(describe))
                throw error
            }
            saved.append(entity.id)
        }
    }

    /// Reads `ids`, one ``fetch(id:)`` each, in order, skipping the absent and repeated ones.
    ///
    /// - Throws: `rejected` before any request when one of `ids` names no single resource;
    ///   else the first failure, as ``fetch(id:)`` throws it.
    /// - Complexity: one request per distinct ID.
    public func fetch(ids: [ID]) async throws -> [Entity] {
        try requireAddressable(ids, operation: "fetch(ids:)")
        var seen = Set<ID>()
        var found: [Entity] = []
        for id in ids where seen.insert(id).inserted {
            try Task.checkCancellation()
            if let entity = try await fetch(id: id) { found.append(entity) }
        }
        return found
    }

    /// Deletes `ids`: in one request when ``Endpoints/deleteBatch`` is set (a `404` counts as
    /// done), else one ``delete(id:)`` each, in order. **Not atomic without the batch
    /// endpoint**: the first failure stops it, and its error says which were already deleted.
    ///
    /// - Throws: `rejected` before any request when one of `ids` names no single resource.
    /// - Complexity: one request, or one per ID.
    public func delete(ids: [ID]) async throws {
        guard !ids.isEmpty else { return }
        try requireAddressable(ids, operation: "delete(ids:)")
        let key = Self.callKey()
        if let deleteBatch = configuration.endpoints.deleteBatch {
            let reply = try await exchange(
                deleteBatch(ids, resource), idempotencyKey: key, operation: "delete(ids:)")
            for id in ids { etags.forget(configuration.endpoints.fetch(id, resource).url) }
            if reply.status == 404 || reply.status == 410 { return }
            try check(reply)
            return
        }
        var deleted: [ID] = []
        for (index, id) in ids.enumerated() {
            do {
                try Task.checkCancellation()
                try await delete(
                    id, key: IdempotencyKey.forEntity(id) ?? "\(key)-\(index + 1)", operation: "delete(ids:)")
            } catch var error as RepositoryError {
                error.reason =
                    "delete(ids:) stopped at entity \(describe(id)), \(deleted.count + 1) of \(ids.count): "
                    + error.reason + ". " + Self.alreadyDone("deleted", deleted.map(describe))
                throw error
            }
            deleted.append(id)
        }
    }

    /// Deletes the collection in one request when ``Endpoints/deleteAll`` is set (a `404`
    /// counts as done); else reads it and deletes each entity in turn. **Not atomic
    /// without the collection endpoint**: the first failure stops it, and its error says
    /// which entities were already deleted.
    ///
    /// - Complexity: one request, or one per page plus one per entity.
    public func deleteAll() async throws {
        let key = Self.callKey()
        if let deleteAll = configuration.endpoints.deleteAll {
            let reply = try await exchange(deleteAll(resource), idempotencyKey: key, operation: "deleteAll()")
            etags.forgetAll()
            if reply.status == 404 || reply.status == 410 { return }
            try check(reply)
            return
        }
        let ids = try await fetchAll().map(\.id)
        // An ID the server listed but no URL can name would address the collection itself.
        try requireAddressable(ids, operation: "deleteAll()")
        var deleted: [ID] = []
        for id in ids {
            do {
                try Task.checkCancellation()
                // Keyed by the ID, not the position: a retry reads a shorter collection.
                try await delete(
                    id, key: "\(key)-\(Fingerprint.of(resource.segment(for: id)))", operation: "deleteAll()"
                )
            } catch var error as RepositoryError {
                error.reason =
                    "deleteAll() stopped at entity \(describe(id)), \(deleted.count + 1) of \(ids.count): "
                    + error.reason + ". " + Self.alreadyDone("deleted", deleted.map(describe))
                throw error
            }
            deleted.append(id)
        }
    }

    /// `entities` with the replacements of one ID merged: the last given, in the place of the
    /// first. Creates (see ``replaces(_:)``) are all kept, in order.
    func mergingReplacements(_ entities: [Entity]) -> [Entity] {
        var position: [ID: Int] = [:]
        var result: [Entity] = []
        result.reserveCapacity(entities.count)
        for entity in entities {
            guard replaces(entity) else {
                result.append(entity)
                continue
            }
            if let index = position[entity.id] {
                result[index] = entity
            } else {
                position[entity.id] = result.count
                result.append(entity)
            }
        }
        return result
    }

    /// Whether saving `entity` replaces what its ID names, so that a later save of that ID in
    /// the same batch makes it redundant: its save is not a `POST`, or is a `POST` that asks
    /// the server to merge duplicates (`Prefer: resolution=merge-duplicates`). Any other `POST`
    /// creates.
    func replaces(_ entity: Entity) -> Bool {
        let endpoint = configuration.endpoints.save(entity, resource)
        guard endpoint.method.uppercased() == "POST" else { return true }
        return endpoint.headers.contains { name, value in
            name.lowercased() == "prefer" && value.lowercased().contains("resolution=merge-duplicates")
        }
    }

    /// "Already saved: 3 entities (1, 2, 3); they stay saved, since REST has no transaction."
    static func alreadyDone(_ verb: String, _ ids: [String]) -> String {
        guard !ids.isEmpty else { return "Nothing was \(verb) before it" }
        let shown = ids.prefix(20).joined(separator: ", ") + (ids.count > 20 ? ", …" : "")
        return
            "Already \(verb): \(ids.count) \(ids.count == 1 ? "entity" : "entities") (\(shown)); they stay \(verb), since plain REST has no transaction"
    }

    /// The idempotency key of the call starting: the task's, else a new one.
    static func callKey() -> String {
        IdempotencyKey.current ?? IdempotencyKey.make()
    }
}
