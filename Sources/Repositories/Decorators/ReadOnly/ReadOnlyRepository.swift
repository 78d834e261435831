/// A repository that answers reads from the one beneath and refuses every write.
///
/// ```swift
/// let catalogue = products.readOnly()
/// try await catalogue.fetchAll()          // passes through
/// try await catalogue.save(milk)          // throws RepositoryError rejected
/// ```
///
/// Reads (`fetch(id:)`, `fetchAll()`, `fetch(ids:)`, `fetch(_:)`, `count()`) pass through
/// unchanged, with the base's own implementations. Writes (`save`, `save(contentsOf:)`,
/// `delete(id:)`, `delete(ids:)`, `deleteAll()`) throw ``RepositoryError/Code/rejected``
/// without reaching the base, so nothing partial can happen.
public struct ReadOnlyRepository<Base: Repository>: Repository {
    /// The base's entity.
    public typealias Entity = Base.Entity
    /// The base's ID.
    public typealias ID = Base.ID

    /// The repository reads are passed to.
    public let base: Base

    /// Wraps `base`.
    public init(_ base: Base) {
        self.base = base
    }

    private func refuse(_ operation: RepositoryOperation) -> RepositoryError {
        RepositoryError.rejected(
            "\(operation) was refused because the repository of \(Entity.self) is read-only",
            recovery: "Write through the repository beneath the read-only view")
    }

    /// Fetches from ``base``.
    public func fetch(id: ID) async throws -> Entity? { try await base.fetch(id: id) }
    /// Fetches from ``base``.
    public func fetchAll() async throws -> [Entity] { try await base.fetchAll() }
    /// Fetches from ``base``.
    public func fetch(ids: [ID]) async throws -> [Entity] { try await base.fetch(ids: ids) }
    /// Queries ``base``.
    public func fetch(_ query: Query<Entity>) async throws -> [Entity] { try await base.fetch(query) }
    /// Counts what the base answers to the query.
    public func count(_ query: Query<Entity>) async throws -> Int { try await base.count(query) }
    /// Counts ``base``.
    public func count() async throws -> Int { try await base.count() }

    /// Throws ``RepositoryError/Code/rejected``; nothing is written.
    public func save(_ entity: Entity) async throws { throw refuse(.save) }
    /// Throws ``RepositoryError/Code/rejected``; nothing is written.
    public func save(contentsOf entities: [Entity]) async throws { throw refuse(.saveContentsOf) }
    /// Throws ``RepositoryError/Code/rejected``; nothing is deleted.
    public func delete(id: ID) async throws { throw refuse(.delete) }
    /// Throws ``RepositoryError/Code/rejected``; nothing is deleted.
    public func delete(ids: [ID]) async throws { throw refuse(.deleteIDs) }
    /// Throws ``RepositoryError/Code/rejected``; nothing is deleted.
    public func deleteAll() async throws { throw refuse(.deleteAll) }
}

extension ReadOnlyRepository: InvalidatableRepository where Base: InvalidatableRepository {
    /// Forwards to ``base``: dropping cached copies changes no data, so it is allowed.
    public func invalidate(ids: [ID]) async { await base.invalidate(ids: ids) }
    /// Forwards to ``base``.
    public func invalidateAll() async { await base.invalidateAll() }
}

extension ReadOnlyRepository: VersionTaggingRepository where Base: VersionTaggingRepository {
    /// The base's tagged copy of `id`.
    public func fetchTagged(id: ID) async throws -> TaggedEntity<Entity>? {
        try await base.fetchTagged(id: id)
    }
    /// Throws ``RepositoryError/Code/rejected``: the view is read-only.
    public func save(_ entity: Entity, ifMatch tag: String) async throws { throw refuse(.save) }
    /// Throws ``RepositoryError/Code/rejected``: the view is read-only.
    public func saveIfAbsent(_ entity: Entity) async throws { throw refuse(.save) }
    /// Throws ``RepositoryError/Code/rejected``: the view is read-only.
    public func delete(id: ID, ifMatch tag: String) async throws { throw refuse(.delete) }
}
