/// A collection of entities kept somewhere (memory, a file, a database, a web API), reached by ID.
///
/// Business logic talks to a `Repository` and never to the place the data lives, so the
/// place can change (a file today, SQLite tomorrow, a cache in front of a web API) and tests
/// can hand in a double.
///
/// ## The laws
///
/// Every conforming type keeps these, and `RepositoryConformance` (in the
/// `RepositoriesTesting` module) checks each of them:
///
/// - A save is visible to the next fetch, and saving the same entity twice changes nothing.
/// - ``save(contentsOf:)`` is all or nothing: a batch that fails leaves nothing behind.
/// - Deleting an absent ID succeeds.
/// - ``fetchAll()`` returns entities in the order they were first inserted; replacing an
///   entity keeps its place, and deleting then saving it again moves it to the end.
/// - `count() == fetchAll().count`.
/// - Concurrent callers never see a torn state.
///
/// Errors are ``RepositoryError``s (or `CancellationError`); no operation turns an error
/// into `nil` or `[]`.
///
/// ## Topics
///
/// ### Reading
/// - ``fetch(id:)``
/// - ``fetchAll()``
/// - ``fetch(ids:)``
/// - ``fetch(_:)``
/// - ``count()``
/// - ``count(_:)``
/// - ``require(id:)``
///
/// ### Writing
/// - ``save(_:)``
/// - ``save(contentsOf:)``
/// - ``delete(id:)``
/// - ``delete(ids:)``
/// - ``deleteAll()``
public protocol Repository<Entity, ID>: Sendable {
    /// The stored type, identified by ``ID``.
    associatedtype Entity: Identifiable & Sendable where Entity.ID == ID
    /// The type that identifies an entity.
    associatedtype ID: Hashable & Sendable

    /// Returns the entity stored under `id`, or `nil` when there is none.
    func fetch(id: ID) async throws -> Entity?

    /// Returns every stored entity, in the order each was first inserted.
    func fetchAll() async throws -> [Entity]

    /// Inserts `entity`, or replaces the one stored under its ID (which keeps its place).
    func save(_ entity: Entity) async throws

    /// Saves every entity of `entities`, all or nothing.
    ///
    /// When the call throws, no entity of the batch was saved. When the batch holds two
    /// entities with one ID, the later one wins and the ID takes the place of its first
    /// appearance.
    func save(contentsOf entities: [Entity]) async throws

    /// Removes the entity stored under `id`; removing an absent ID succeeds.
    func delete(id: ID) async throws

    /// Removes every entity.
    func deleteAll() async throws

    /// Returns the entities stored under `ids`, in the order of `ids`, skipping absent IDs
    /// and repeated ones.
    func fetch(ids: [ID]) async throws -> [Entity]

    /// Returns the entities that match `query`: filtered, sorted, then paged.
    ///
    /// - Throws: ``RepositoryError/Code/rejected`` when the query's offset or limit is negative.
    func fetch(_ query: Query<Entity>) async throws -> [Entity]

    /// Returns how many entities are stored.
    func count() async throws -> Int

    /// Returns how many entities ``fetch(_:)`` returns for `query`: its offset and limit
    /// count too, so count a query before its `limit` for a pager's total.
    ///
    /// - Throws: ``RepositoryError/Code/rejected`` as ``fetch(_:)`` does.
    func count(_ query: Query<Entity>) async throws -> Int

    /// Removes the entities stored under `ids`; absent IDs are skipped.
    func delete(ids: [ID]) async throws
}

extension Repository {
    /// Fetches each ID in turn. Stores that can answer in one round trip should override it.
    ///
    /// - Complexity: one ``fetch(id:)`` per distinct ID.
    public func fetch(ids: [ID]) async throws -> [Entity] {
        var seen = Set<ID>()
        var found: [Entity] = []
        found.reserveCapacity(ids.count)
        for id in ids where seen.insert(id).inserted {
            try Task.checkCancellation()
            if let entity = try await fetch(id: id) { found.append(entity) }
        }
        return found
    }

    /// Validates `query`, fetches every entity, then applies the query in memory, outside
    /// any lock the store holds, so a slow predicate never blocks other callers.
    ///
    /// - Complexity: O(*n* log *n*) for *n* stored entities when the query sorts, O(*n*) otherwise.
    public func fetch(_ query: Query<Entity>) async throws -> [Entity] {
        try query.validate()
        return try query.apply(to: await fetchAll())
    }

    /// Counts the result of ``fetchAll()``. Stores that keep a count should override it.
    public func count() async throws -> Int {
        try await fetchAll().count
    }

    /// Counts what ``fetch(_:)`` returns. Stores that can count where the data lives should
    /// override it.
    public func count(_ query: Query<Entity>) async throws -> Int {
        try await fetch(query).count
    }

    /// Deletes each ID in turn. Stores that can delete in one step should override it, and
    /// must when a partial delete would break their guarantees.
    public func delete(ids: [ID]) async throws {
        for id in ids {
            try Task.checkCancellation()
            try await delete(id: id)
        }
    }

    /// Returns the entity stored under `id`, or throws when there is none.
    ///
    /// - Throws: ``RepositoryError/Code/notFound`` naming the ID when nothing is stored under it.
    public func require(id: ID) async throws -> Entity {
        guard let entity = try await fetch(id: id) else { throw RepositoryError.notFound(id: id) }
        return entity
    }
}
