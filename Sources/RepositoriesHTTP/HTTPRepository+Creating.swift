import Foundation
import Repositories

extension HTTPRepository {
    /// Creates `entity` on the server, which assigns its final ID, and returns what the
    /// server stored: its ID, its timestamps, any field it filled in.
    ///
    /// ```swift
    /// let draft = Note(id: 0, title: "Call the plumber")      // 0: no ID yet
    /// let note = try await notes.create(draft)                  // POST /notes → {"id": 17, …}
    /// ```
    ///
    /// Sends ``Endpoints/create`` (`POST baseURL` by default) with ``Coding/encodeNew`` as the
    /// body (the entity's JSON; ``Coding/omittingOnCreate(_:)`` leaves the placeholder ID
    /// out) and the call's idempotency key, and reads the answer with ``Coding/decodeEntity``.
    /// An answer without a body but with a `Location` header is read with a `GET` of that URL.
    ///
    /// Unlike ``save(_:)``, a create is not idempotent by itself: sent twice, it makes two
    /// entities. Retry it only under one key (`withIdempotencyKey(key) { … }`) against a server
    /// that honours `Idempotency-Key`.
    ///
    /// - Returns: the entity as the server stored it.
    /// - Throws: `encodingFailed` (nothing sent); `decodingFailed` when the answer holds no
    ///   entity (the server created it, but it cannot be read back); else `RepositoryError` as
    ///   the type's documentation lists; `rejected` before any request when the create is sent
    ///   to the entity's own URL (``Endpoints/create`` with `resource.item(id)`) and its ID
    ///   names no single resource. A placeholder ID of a create posted to the collection is
    ///   never checked.
    public func create(_ entity: Entity) async throws -> Entity {
        if createAddressesItem(entity) { try requireAddressable(entity.id, operation: "create(_:)") }
        let body = try encodeNew(entity)
        return try await create(entity, body: body, key: Self.callKey(), operation: "create(_:)")
    }

    /// Creates `entities` on the server and returns what it stored for each, in order: in one
    /// request when ``Endpoints/createBatch`` is set, else one ``create(_:)`` each.
    ///
    /// Every entity is encoded before anything is sent, so one that cannot be encoded fails
    /// the call with `encodingFailed` and nothing is created. After that:
    ///
    /// - with ``Endpoints/createBatch``, one request; its answer must hold one entity per
    ///   entity sent, in order (``Coding/decodeBatch``);
    /// - without it, the creates go out one by one and the first failure stops them. **The
    ///   ones before it stay created**, and the caller learns which: the error keeps the
    ///   failure's code, says in `reason` how many were created, and its `underlying` is a
    ///   ``CreatedBeforeFailure`` holding the entities the server stored, in order:
    ///
    /// ```swift
    /// do {
    ///     let stored = try await notes.create(contentsOf: drafts)
    /// } catch let error as RepositoryError {
    ///     if let partial = error.underlying as? HTTPRepository<Note>.CreatedBeforeFailure {
    ///         keep(partial.created)                               // drafts[0..<partial.created.count]
    ///         retryLater(drafts[partial.created.count...])
    ///     }
    /// }
    /// ```
    ///
    /// Cancelling the task stops before the next create and throws `CancellationError`.
    ///
    /// - Returns: the entities as the server stored them, one per entity given, in order.
    /// - Complexity: one request, or one per entity.
    public func create(contentsOf entities: [Entity]) async throws -> [Entity] {
        guard !entities.isEmpty else { return [] }
        try requireAddressable(
            entities.filter(createAddressesItem).map(\.id), operation: "create(contentsOf:)")
        let key = Self.callKey()
        if let createBatch = configuration.endpoints.createBatch {
            return try await createInOneRequest(entities, createBatch(entities, resource), key: key)
        }
        let bodies = try entities.map { try encodeNew($0) }
        var created: [Entity] = []
        for (index, body) in bodies.enumerated() {
            do {
                try Task.checkCancellation()
                created.append(
                    try await create(
                        entities[index], body: body, key: "\(key)-\(index + 1)",
                        operation: "create(contentsOf:)"))
            } catch let failure as RepositoryError {
                var error = failure
                error.reason =
                    "create(contentsOf:) stopped at entity \(index + 1) of \(entities.count): \(failure.reason). "
                    + (created.isEmpty
                        ? "Nothing was created before it"
                        : "Created before it: \(created.count) (IDs \(created.prefix(20).map { describe($0.id) }.joined(separator: ", "))); they stay created, and the error's underlying CreatedBeforeFailure holds them")
                error.underlying = CreatedBeforeFailure(created: created, failure: failure)
                throw error
            }
        }
        return created
    }

    /// The entities a ``create(contentsOf:)`` made before it failed, and the failure.
    public struct CreatedBeforeFailure: Error, Sendable, CustomStringConvertible {
        /// What the server stored for the first `created.count` entities given, in order.
        public var created: [Entity]
        /// The failure that stopped the batch, at the entity `created.count + 1`.
        public var failure: RepositoryError

        /// The entities created, and the failure that stopped the rest.
        public init(created: [Entity], failure: RepositoryError) {
            self.created = created
            self.failure = failure
        }

        /// "3 entities were created before the failure: …".
        public var description: String {
            "\(created.count) \(created.count == 1 ? "entity was" : "entities were") created before the failure: \(failure)"
        }
    }

    /// Encodes `entity` as a create's body.
    ///
    /// - Throws: `encodingFailed` naming the entity.
    func encodeNew(_ entity: Entity) throws -> Data {
        do {
            return try configuration.coding.encodeNew(entity, configuration.coding.makeEncoder())
        } catch {
            throw naming(
                RepositoryError.encodingFailed(id: describe(entity.id), underlying: error), of: entity)
        }
    }

    /// Sends one create and reads what the server stored.
    private func create(_ entity: Entity, body: Data, key: String, operation: String) async throws -> Entity {
        let endpoint = configuration.endpoints.create(entity, resource)
        let reply = try await exchange(endpoint, body: body, idempotencyKey: key, operation: operation)
        try check(reply)
        if reply.body.allSatisfy({ [0x20, 0x0A, 0x0D, 0x09].contains($0) }) {
            guard let location = reply.header("Location").flatMap(reply.resolve) else {
                throw RepositoryError(
                    .decodingFailed,
                    reason:
                        "\(reply.method) \(reply.url.absoluteString) answered \(reply.status) with no body and no Location, so the entity was created but cannot be read back",
                    recovery:
                        "Make the API answer the created entity (PostgREST: send Prefer: return=representation)",
                    record: "created", location: reply.url.absoluteString)
            }
            // Part of the create's answer: the entity was created, so a cancellation now must
            // not hide it from the caller (a task of its own is not cancelled with the caller's).
            let stored = try await Task { try await exchange(.get(location), operation: operation) }.value
            try check(stored)
            return try decode(
                stored, as: "the created \(Entity.self)", record: "created", configuration.coding.decodeEntity
            )
        }
        return try decode(
            reply, as: "the created \(Entity.self)", record: "created", configuration.coding.decodeEntity)
    }

    /// Sends a bulk create and reads what the server stored, one per entity sent.
    private func createInOneRequest(_ entities: [Entity], _ endpoint: HTTPEndpoint, key: String) async throws
        -> [Entity]
    {
        let body: Data
        do {
            body = try configuration.coding.encodeNewBatch(entities, configuration.coding.makeEncoder())
        } catch {
            throw firstEncodingFailure(
                in: entities, fallback: RepositoryError.encodingFailed(id: nil, underlying: error), encodeNew)
        }
        let reply = try await exchange(
            endpoint, body: body, idempotencyKey: key, operation: "create(contentsOf:)")
        try check(reply)
        let created = try decode(
            reply, as: "the created \(Entity.self) values", record: "created batch",
            configuration.coding.decodeBatch)
        guard created.count == entities.count else {
            throw RepositoryError(
                .decodingFailed,
                reason:
                    "\(reply.method) \(reply.url.absoluteString) answered \(created.count) entities for the \(entities.count) created, so which is which is unknown",
                recovery: "Make the bulk endpoint answer every created entity, in the order sent",
                record: "created batch", location: reply.url.absoluteString)
        }
        return created
    }
}
