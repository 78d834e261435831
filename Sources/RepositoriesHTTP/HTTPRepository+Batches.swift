import Foundation
import Repositories

extension HTTPRepository {
    /// Saves `entities`: in one request when ``Endpoints/saveBatch`` is set, else one save
    /// per entity, in order. **Not atomic without a bulk endpoint.**
    ///
    /// Within the batch the later of two entities with one ID wins, in the place of the
    /// first. Every entity is encoded before anything is sent, so an entity that cannot be
    /// encoded fails the batch with `encodingFailed` and nothing is saved. After that:
    ///
    /// - with ``Endpoints/saveBatch``, the batch is one request: saved whole or not at all,
    ///   as far as the server keeps that promise;
    /// - without it, the saves go out one by one and the first failure stops the batch. Its
    ///   error keeps the failure's code (so `.retrying` still knows a transient one; saving
    ///   the batch again is safe, since saves are upserts), names the entity that failed in
    ///   `id`, and says in `reason` how many, and which, were saved before it: they stay
    ///   saved.
    ///
    /// - Complexity: one request, or one per distinct ID.
    public func save(contentsOf entities: [Entity]) async throws {
        let batch = Self.laterWinsInFirstPlace(entities)
        guard !batch.isEmpty else { return }
        if let saveBatch = configuration.endpoints.saveBatch {
            let body: Data
            do {
                body = try configuration.coding.encodeBatch(batch, configuration.coding.makeEncoder())
            } catch {
                throw RepositoryError.encodingFailed(id: nil, underlying: error)
            }
            let reply = try await exchange(
                saveBatch(batch, resource), body: body, operation: "save(contentsOf:)")
            try check(reply)
            return
        }
        let bodies = try batch.map { ($0, try encode($0)) }
        var saved: [ID] = []
        for (entity, body) in bodies {
            do {
                try Task.checkCancellation()
                try await send(entity, body: body, operation: "save(contentsOf:)")
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

    /// Deletes the collection in one request when ``Endpoints/deleteAll`` is set (a `404`
    /// counts as done); else reads it and deletes each entity in turn. **Not atomic
    /// without the collection endpoint**: the first failure stops it, and its error says
    /// which entities were already deleted.
    ///
    /// - Complexity: one request, or one per page plus one per entity.
    public func deleteAll() async throws {
        if let deleteAll = configuration.endpoints.deleteAll {
            let reply = try await exchange(deleteAll(resource), operation: "deleteAll()")
            etags.forgetAll()
            if reply.status == 404 || reply.status == 410 { return }
            try check(reply)
            return
        }
        let ids = try await fetchAll().map(\.id)
        var deleted: [ID] = []
        for id in ids {
            do {
                try Task.checkCancellation()
                try await delete(id: id)
            } catch var error as RepositoryError {
                error.reason =
                    "deleteAll() stopped at entity \(describe(id)), \(deleted.count + 1) of \(ids.count): "
                    + error.reason + ". " + Self.alreadyDone("deleted", deleted.map(describe))
                throw error
            }
            deleted.append(id)
        }
    }

    /// `entities` with one entity per ID: the last given, in the place of the first.
    static func laterWinsInFirstPlace(_ entities: [Entity]) -> [Entity] {
        var position: [ID: Int] = [:]
        var result: [Entity] = []
        result.reserveCapacity(entities.count)
        for entity in entities {
            if let index = position[entity.id] {
                result[index] = entity
            } else {
                position[entity.id] = result.count
                result.append(entity)
            }
        }
        return result
    }

    /// "Already saved: 3 entities (1, 2, 3); they stay saved, since REST has no transaction."
    static func alreadyDone(_ verb: String, _ ids: [String]) -> String {
        guard !ids.isEmpty else { return "Nothing was \(verb) before it" }
        let shown = ids.prefix(20).joined(separator: ", ") + (ids.count > 20 ? ", …" : "")
        return
            "Already \(verb): \(ids.count) \(ids.count == 1 ? "entity" : "entities") (\(shown)); they stay \(verb), since plain REST has no transaction"
    }
}
