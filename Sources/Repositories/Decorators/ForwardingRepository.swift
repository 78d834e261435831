/// A decorator that wraps every call to its base the same way: it states what it does
/// around one call in ``around(_:_:)``, and gets every operation of ``Repository`` from
/// this protocol's extension.
///
/// ``RetryingRepository``, ``TimeoutRepository``, ``CircuitBreakerRepository`` and
/// ``InstrumentedRepository`` conform. Each passes every operation, customization points
/// included, to the base's own implementation inside `around`, so a store's faster
/// `fetch(ids:)` or `count()` is still the one called.
///
/// The protocol is internal; the operations in its extension are public, and they are
/// what the conforming public types expose as their `Repository` methods. The extension is
/// generic over the conformer, so each operation is specialized for it, with no existential
/// in between; the one cost a call pays is its `body` closure, which escapes so that
/// ``TimeoutRepository`` can run it in a child task.
protocol ForwardingRepository: Repository where Entity == Base.Entity, ID == Base.ID {
    /// The repository every call is passed to.
    associatedtype Base: Repository

    /// The repository every call is passed to.
    var base: Base { get }

    /// Runs `body`, the call of `operation` on ``base``, wrapped as the decorator does (once
    /// or several times, timed, guarded…), and returns or throws what the decorator decides.
    func around<T: Sendable>(
        _ operation: RepositoryOperation, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T
}

extension ForwardingRepository {
    /// Fetches the entity under `id` from the base, through this decorator (see the type's
    /// documentation for what it does around each call).
    public func fetch(id: ID) async throws -> Entity? {
        try await around(.fetch) { [base] in try await base.fetch(id: id) }
    }

    /// Fetches every entity from the base, through this decorator (see the type's
    /// documentation for what it does around each call).
    public func fetchAll() async throws -> [Entity] {
        try await around(.fetchAll) { [base] in try await base.fetchAll() }
    }

    /// Saves `entity` to the base, through this decorator (see the type's documentation for
    /// what it does around each call).
    public func save(_ entity: Entity) async throws {
        try await around(.save) { [base] in try await base.save(entity) }
    }

    /// Saves `entities` to the base as one batch, all or nothing, through this decorator (see
    /// the type's documentation for what it does around each call).
    public func save(contentsOf entities: [Entity]) async throws {
        try await around(.saveContentsOf) { [base] in try await base.save(contentsOf: entities) }
    }

    /// Deletes the entity under `id` from the base, through this decorator (see the type's
    /// documentation for what it does around each call).
    public func delete(id: ID) async throws {
        try await around(.delete) { [base] in try await base.delete(id: id) }
    }

    /// Deletes every entity from the base, through this decorator (see the type's
    /// documentation for what it does around each call).
    public func deleteAll() async throws {
        try await around(.deleteAll) { [base] in try await base.deleteAll() }
    }

    /// Fetches the entities under `ids` from the base, through this decorator (see the type's
    /// documentation for what it does around each call).
    public func fetch(ids: [ID]) async throws -> [Entity] {
        try await around(.fetchIDs) { [base] in try await base.fetch(ids: ids) }
    }

    /// Queries the base, through this decorator (see the type's documentation for what it
    /// does around each call).
    public func fetch(_ query: Query<Entity>) async throws -> [Entity] {
        try await around(.fetchQuery) { [base] in try await base.fetch(query) }
    }

    /// Counts the base's entities, through this decorator (see the type's documentation for
    /// what it does around each call).
    public func count() async throws -> Int {
        try await around(.count) { [base] in try await base.count() }
    }

    /// Counts what the base's query returns, through this decorator (see the type's
    /// documentation for what it does around each call).
    public func count(_ query: Query<Entity>) async throws -> Int {
        try await around(.countQuery) { [base] in try await base.count(query) }
    }

    /// Deletes the entities under `ids` from the base, through this decorator (see the type's
    /// documentation for what it does around each call).
    public func delete(ids: [ID]) async throws {
        try await around(.deleteIDs) { [base] in try await base.delete(ids: ids) }
    }
}
