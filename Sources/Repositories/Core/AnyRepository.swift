/// A repository made of `@Sendable` closures: type erasure for any ``Repository``, and the
/// shape of a dependency client in the style of The Composable Architecture.
///
/// Wrap a concrete repository to hide its type:
///
/// ```swift
/// let todos = AnyRepository(try await FileRepository<Todo>(fileURL: url))
/// ```
///
/// Or build one from closures, overriding only what a test needs (the other
/// customization points fall back to the required ones):
///
/// ```swift
/// var todos = AnyRepository(InMemoryRepository<Todo>())
/// todos.onSave = { _ in throw RepositoryError.unavailable("offline") }
/// todos.onSaveContentsOf = { _ in throw RepositoryError.unavailable("offline") }
/// ```
///
/// Each endpoint is replaced on its own: `onSave` does not change `onSaveContentsOf`, so a
/// test that makes saving fail replaces both.
///
/// `RepositoriesTesting` adds `AnyRepository.unimplemented()`, whose every endpoint reports
/// a test failure naming itself.
public struct AnyRepository<Entity: Identifiable & Sendable, ID: Hashable & Sendable>: Repository
where Entity.ID == ID {
    /// Answers ``fetch(id:)``.
    public var onFetch: @Sendable (ID) async throws -> Entity?
    /// Answers ``fetchAll()``.
    public var onFetchAll: @Sendable () async throws -> [Entity]
    /// Answers ``save(_:)``.
    public var onSave: @Sendable (Entity) async throws -> Void
    /// Answers ``save(contentsOf:)``.
    public var onSaveContentsOf: @Sendable ([Entity]) async throws -> Void
    /// Answers ``delete(id:)``.
    public var onDelete: @Sendable (ID) async throws -> Void
    /// Answers ``deleteAll()``.
    public var onDeleteAll: @Sendable () async throws -> Void
    /// Answers ``fetch(ids:)``.
    public var onFetchIDs: @Sendable ([ID]) async throws -> [Entity]
    /// Answers ``fetch(_:)``.
    public var onFetchQuery: @Sendable (Query<Entity>) async throws -> [Entity]
    /// Answers ``count()``.
    public var onCount: @Sendable () async throws -> Int
    /// Answers ``count(_:)``.
    public var onCountQuery: @Sendable (Query<Entity>) async throws -> Int
    /// Answers ``delete(ids:)``.
    public var onDeleteIDs: @Sendable ([ID]) async throws -> Void

    /// Creates a repository from closures.
    ///
    /// The customization points (`fetchIDs`, `fetchQuery`, `count`, `countQuery`,
    /// `deleteIDs`) default to
    /// the protocol's default implementations over the required closures given here (a
    /// closure assigned to a property later does not change them). The default `deleteIDs`
    /// deletes one ID at a time, so it is not atomic.
    public init(
        fetch: @escaping @Sendable (ID) async throws -> Entity?,
        fetchAll: @escaping @Sendable () async throws -> [Entity],
        save: @escaping @Sendable (Entity) async throws -> Void,
        saveContentsOf: @escaping @Sendable ([Entity]) async throws -> Void,
        delete: @escaping @Sendable (ID) async throws -> Void,
        deleteAll: @escaping @Sendable () async throws -> Void,
        fetchIDs: (@Sendable ([ID]) async throws -> [Entity])? = nil,
        fetchQuery: (@Sendable (Query<Entity>) async throws -> [Entity])? = nil,
        count: (@Sendable () async throws -> Int)? = nil,
        countQuery: (@Sendable (Query<Entity>) async throws -> Int)? = nil,
        deleteIDs: (@Sendable ([ID]) async throws -> Void)? = nil
    ) {
        self.onFetch = fetch
        self.onFetchAll = fetchAll
        self.onSave = save
        self.onSaveContentsOf = saveContentsOf
        self.onDelete = delete
        self.onDeleteAll = deleteAll
        let required = RequiredOperations(
            fetchByID: fetch, fetchEverything: fetchAll, saveOne: save, saveBatch: saveContentsOf,
            deleteByID: delete, deleteEverything: deleteAll)
        self.onFetchIDs = fetchIDs ?? { try await required.fetch(ids: $0) }
        self.onFetchQuery = fetchQuery ?? { try await required.fetch($0) }
        self.onCount = count ?? { try await required.count() }
        self.onCountQuery = countQuery ?? { try await required.count($0) }
        self.onDeleteIDs = deleteIDs ?? { try await required.delete(ids: $0) }
    }

    /// Wraps `base`, forwarding every operation, customization points included.
    public init(_ base: some Repository<Entity, ID>) {
        if let erased = base as? AnyRepository {
            self = erased
            return
        }
        self.onFetch = { try await base.fetch(id: $0) }
        self.onFetchAll = { try await base.fetchAll() }
        self.onSave = { try await base.save($0) }
        self.onSaveContentsOf = { try await base.save(contentsOf: $0) }
        self.onDelete = { try await base.delete(id: $0) }
        self.onDeleteAll = { try await base.deleteAll() }
        self.onFetchIDs = { try await base.fetch(ids: $0) }
        self.onFetchQuery = { try await base.fetch($0) }
        self.onCount = { try await base.count() }
        self.onCountQuery = { try await base.count($0) }
        self.onDeleteIDs = { try await base.delete(ids: $0) }
    }

    /// Calls ``onFetch``.
    public func fetch(id: ID) async throws -> Entity? { try await onFetch(id) }
    /// Calls ``onFetchAll``.
    public func fetchAll() async throws -> [Entity] { try await onFetchAll() }
    /// Calls ``onSave``.
    public func save(_ entity: Entity) async throws { try await onSave(entity) }
    /// Calls ``onSaveContentsOf``.
    public func save(contentsOf entities: [Entity]) async throws { try await onSaveContentsOf(entities) }
    /// Calls ``onDelete``.
    public func delete(id: ID) async throws { try await onDelete(id) }
    /// Calls ``onDeleteAll``.
    public func deleteAll() async throws { try await onDeleteAll() }
    /// Calls ``onFetchIDs``.
    public func fetch(ids: [ID]) async throws -> [Entity] { try await onFetchIDs(ids) }
    /// Calls ``onFetchQuery``.
    public func fetch(_ query: Query<Entity>) async throws -> [Entity] { try await onFetchQuery(query) }
    /// Calls ``onCount``.
    public func count() async throws -> Int { try await onCount() }
    /// Calls ``onCountQuery``.
    public func count(_ query: Query<Entity>) async throws -> Int { try await onCountQuery(query) }
    /// Calls ``onDeleteIDs``.
    public func delete(ids: [ID]) async throws { try await onDeleteIDs(ids) }
}

/// The six required operations as closures, so ``AnyRepository`` reuses the protocol's
/// default implementations of the customization points instead of writing them again.
private struct RequiredOperations<Entity: Identifiable & Sendable, ID: Hashable & Sendable>: Repository
where Entity.ID == ID {
    let fetchByID: @Sendable (ID) async throws -> Entity?
    let fetchEverything: @Sendable () async throws -> [Entity]
    let saveOne: @Sendable (Entity) async throws -> Void
    let saveBatch: @Sendable ([Entity]) async throws -> Void
    let deleteByID: @Sendable (ID) async throws -> Void
    let deleteEverything: @Sendable () async throws -> Void

    func fetch(id: ID) async throws -> Entity? { try await fetchByID(id) }
    func fetchAll() async throws -> [Entity] { try await fetchEverything() }
    func save(_ entity: Entity) async throws { try await saveOne(entity) }
    func save(contentsOf entities: [Entity]) async throws { try await saveBatch(entities) }
    func delete(id: ID) async throws { try await deleteByID(id) }
    func deleteAll() async throws { try await deleteEverything() }
}
