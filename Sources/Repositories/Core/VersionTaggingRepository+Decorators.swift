// A decorator that wraps every call of its base the same way wraps a conditional write the
// same way too: retried with the same idempotency key, timed, guarded, instrumented. Swift
// does not let the internal forwarding protocol's extension declare the public witnesses,
// so each decorator states them, each one line over the shared forwarding below.

extension ForwardingRepository where Base: VersionTaggingRepository {
    func forwardFetchTagged(_ id: ID) async throws -> TaggedEntity<Entity>? {
        try await around(.fetch) { [base] in try await base.fetchTagged(id: id) }
    }

    func forwardSave(_ entity: Entity, ifMatch tag: String) async throws {
        try await around(.save) { [base] in try await base.save(entity, ifMatch: tag) }
    }

    func forwardSaveIfAbsent(_ entity: Entity) async throws {
        try await around(.save) { [base] in try await base.saveIfAbsent(entity) }
    }

    func forwardDelete(_ id: ID, ifMatch tag: String) async throws {
        try await around(.delete) { [base] in try await base.delete(id: id, ifMatch: tag) }
    }
}

extension RetryingRepository: VersionTaggingRepository where Base: VersionTaggingRepository {
    /// The base's tagged copy of `id`, retried as a `fetch(id:)`, `save(_:)` or `delete(id:)` is, under one idempotency key.
    public func fetchTagged(id: ID) async throws -> TaggedEntity<Entity>? { try await forwardFetchTagged(id) }
    /// The base's conditional save, retried as a `fetch(id:)`, `save(_:)` or `delete(id:)` is, under one idempotency key.
    public func save(_ entity: Entity, ifMatch tag: String) async throws {
        try await forwardSave(entity, ifMatch: tag)
    }
    /// The base's create-if-absent, retried as a `fetch(id:)`, `save(_:)` or `delete(id:)` is, under one idempotency key.
    public func saveIfAbsent(_ entity: Entity) async throws { try await forwardSaveIfAbsent(entity) }
    /// The base's conditional delete, retried as a `fetch(id:)`, `save(_:)` or `delete(id:)` is, under one idempotency key.
    public func delete(id: ID, ifMatch tag: String) async throws { try await forwardDelete(id, ifMatch: tag) }
}

extension TimeoutRepository: VersionTaggingRepository where Base: VersionTaggingRepository {
    /// The base's tagged copy of `id`, within the time limit, as any call.
    public func fetchTagged(id: ID) async throws -> TaggedEntity<Entity>? { try await forwardFetchTagged(id) }
    /// The base's conditional save, within the time limit, as any call.
    public func save(_ entity: Entity, ifMatch tag: String) async throws {
        try await forwardSave(entity, ifMatch: tag)
    }
    /// The base's create-if-absent, within the time limit, as any call.
    public func saveIfAbsent(_ entity: Entity) async throws { try await forwardSaveIfAbsent(entity) }
    /// The base's conditional delete, within the time limit, as any call.
    public func delete(id: ID, ifMatch tag: String) async throws { try await forwardDelete(id, ifMatch: tag) }
}

extension CircuitBreakerRepository: VersionTaggingRepository where Base: VersionTaggingRepository {
    /// The base's tagged copy of `id`, through the breaker, as any call.
    public func fetchTagged(id: ID) async throws -> TaggedEntity<Entity>? { try await forwardFetchTagged(id) }
    /// The base's conditional save, through the breaker, as any call.
    public func save(_ entity: Entity, ifMatch tag: String) async throws {
        try await forwardSave(entity, ifMatch: tag)
    }
    /// The base's create-if-absent, through the breaker, as any call.
    public func saveIfAbsent(_ entity: Entity) async throws { try await forwardSaveIfAbsent(entity) }
    /// The base's conditional delete, through the breaker, as any call.
    public func delete(id: ID, ifMatch tag: String) async throws { try await forwardDelete(id, ifMatch: tag) }
}

extension InstrumentedRepository: VersionTaggingRepository where Base: VersionTaggingRepository {
    /// The base's tagged copy of `id`, reported as a `fetch`, `save` or `delete` event.
    public func fetchTagged(id: ID) async throws -> TaggedEntity<Entity>? { try await forwardFetchTagged(id) }
    /// The base's conditional save, reported as a `fetch`, `save` or `delete` event.
    public func save(_ entity: Entity, ifMatch tag: String) async throws {
        try await forwardSave(entity, ifMatch: tag)
    }
    /// The base's create-if-absent, reported as a `fetch`, `save` or `delete` event.
    public func saveIfAbsent(_ entity: Entity) async throws { try await forwardSaveIfAbsent(entity) }
    /// The base's conditional delete, reported as a `fetch`, `save` or `delete` event.
    public func delete(id: ID, ifMatch tag: String) async throws { try await forwardDelete(id, ifMatch: tag) }
}
