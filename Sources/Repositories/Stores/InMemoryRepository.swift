import Synchronization

/// A repository that keeps its entities in memory, in insertion order, behind a lock.
///
/// Use it as the store of a prototype, the cache tier of ``Repository`` decorators, or the
/// reference a test compares against. Every operation takes the lock once and never
/// suspends, so callers on any thread or task see each operation whole.
///
/// ```swift
/// let products = InMemoryRepository<Product>([milk, bread])
/// try await products.save(butter)
/// let all = try await products.fetchAll()   // milk, bread, butter
///
/// let recent = InMemoryRepository<Product>(capacity: 100)  // keeps the 100 most recently used
/// ```
///
/// With a `capacity`, saving a new entity past it evicts the least recently used one;
/// `fetch(id:)`, `fetch(ids:)` and `save` count as uses, while `fetchAll()`, queries and
/// `count()` do not.
///
/// It has a change feed (``ChangeFeedRepository``): every save and delete gets a number, so
/// an offline-first device syncing with it as its remote (a test's server, a prototype's)
/// pulls only what changed since its last sync. An entity the capacity evicts counts as
/// deleted.
///
/// Nothing is lost to a failure here (no operation throws but on a negative query bound),
/// but everything is lost when the process ends: for data that must survive, use
/// `FileRepository` or `SQLiteRepository`.
public final class InMemoryRepository<Entity: Identifiable & Sendable>: Repository, Sendable
where Entity.ID: Sendable {
    /// The type that identifies an entity.
    public typealias ID = Entity.ID

    @usableFromInline let storage: Mutex<_InMemoryStorage<Entity>>

    /// Creates an empty repository that keeps every entity.
    public init() {
        var initial = _InMemoryStorage<Entity>(capacity: nil)
        initial.changeLog = _ChangeLog()
        storage = Mutex(initial)
    }

    /// Creates a repository holding `entities`, in their order; a later entity with a
    /// repeated ID replaces the earlier one in its place.
    public init(_ entities: some Sequence<Entity>) {
        var initial = _InMemoryStorage<Entity>(capacity: nil)
        initial.changeLog = _ChangeLog()
        for entity in entities { initial.upsert(entity) }
        storage = Mutex(initial)
    }

    /// Creates an empty repository that keeps at most `capacity` entities, evicting the
    /// least recently used past it.
    ///
    /// - Precondition: `capacity` is greater than zero.
    public init(capacity: Int) {
        precondition(
            capacity > 0, "InMemoryRepository(capacity:) needs a capacity above zero, got \(capacity)")
        var initial = _InMemoryStorage<Entity>(capacity: capacity)
        initial.changeLog = _ChangeLog()
        storage = Mutex(initial)
    }

    /// The most entities kept at once, or `nil` when there is no limit.
    public var capacity: Int? { storage.withLock { $0.capacity } }

    /// - Complexity: O(1).
    @inlinable
    public func fetch(id: ID) async throws -> Entity? {
        storage.withLock { $0.entity(for: id) }
    }

    /// - Complexity: O(*n*).
    public func fetchAll() async throws -> [Entity] {
        storage.withLock { $0.all() }
    }

    /// - Complexity: O(1) amortized.
    @inlinable
    public func save(_ entity: Entity) async throws {
        storage.withLock { $0.upsert(entity) }
    }

    /// Saves the batch under one lock, so no reader sees part of it.
    ///
    /// - Complexity: O(*m*) for *m* entities.
    public func save(contentsOf entities: [Entity]) async throws {
        storage.withLock { state in
            for entity in entities { state.upsert(entity) }
        }
    }

    /// - Complexity: O(1) amortized.
    public func delete(id: ID) async throws {
        storage.withLock { $0.remove(id) }
    }

    /// - Complexity: O(*n*).
    public func deleteAll() async throws {
        storage.withLock { $0.removeAll() }
    }

    /// Reads every ID under one lock.
    ///
    /// - Complexity: O(*m*) for *m* IDs.
    public func fetch(ids: [ID]) async throws -> [Entity] {
        storage.withLock { $0.entities(for: ids) }
    }

    /// - Complexity: O(1).
    public func count() async throws -> Int {
        storage.withLock { $0.count }
    }

    /// Runs the query's conditions and declared sort keys with the indexes this repository
    /// keeps over the entity's declared fields (``QueryableEntity``), under the lock (each
    /// built the first time a query needs it, in O(*n* log *n*), and kept with every write
    /// from then on); closure
    /// filters and other sort keys run after, outside it.
    ///
    /// - Complexity: O(log *n* + *k*) for a range on a declared field, sorted by it, with a
    ///   limit, where *k* is the number of entities read; O(*n*) for a query the indexes
    ///   cannot narrow.
    public func fetch(_ query: Query<Entity>) async throws -> [Entity] {
        try query.validate()
        return query.finish(storage.withLock { $0.select(query) })
    }

    /// Counts with the indexes, as ``fetch(_:)`` selects, without sorting.
    public func count(_ query: Query<Entity>) async throws -> Int {
        try query.validate()
        if query.predicates.isEmpty, let matches = storage.withLock({ $0.conditionMatchCount(query) }) {
            return query.finishedCount(matching: matches)
        }
        return query.finishedCount(storage.withLock { $0.select(query, sorting: false) })
    }

    /// Deletes every ID under one lock.
    ///
    /// - Complexity: O(*m*) for *m* IDs.
    public func delete(ids: [ID]) async throws {
        storage.withLock { state in
            for id in ids { state.remove(id) }
        }
    }
}
