import Repositories
import Synchronization

/// A repository that records every call, then passes it to a real repository beneath.
///
/// Use it where an article would hand-write a mock: the view model under test gets a real
/// store (in memory, say), and the test asserts on both the outcome and the calls.
///
/// ```swift
/// let spy = SpyRepository(InMemoryRepository<Todo>())
/// let model = TodoListModel(repository: spy)
/// await model.add("Buy milk")
/// #expect(spy.operations == [.save])
/// #expect(spy.calls[0].entities.map(\.title) == ["Buy milk"])
/// ```
public final class SpyRepository<Base: Repository>: Repository {
    /// The wrapped repository's entity.
    public typealias Entity = Base.Entity
    /// The wrapped repository's ID.
    public typealias ID = Base.ID

    /// One recorded call: the operation, its arguments and whether it threw.
    public struct Call: Sendable {
        /// Which operation was called.
        public var operation: RepositoryOperation
        /// The IDs passed (`fetch(id:)`, `delete(id:)`, `fetch(ids:)`, `delete(ids:)`).
        public var ids: [ID]
        /// The entities passed (`save(_:)`, `save(contentsOf:)`).
        public var entities: [Entity]
        /// The query passed to `fetch(_:)`.
        public var query: Query<Entity>?
        /// The error the call threw, or `nil` when it succeeded (or is still running).
        public var error: (any Error)?
    }

    /// The repository every call is passed to.
    public let base: Base
    private let log = Mutex<[Call]>([])

    /// Wraps `base`.
    public init(_ base: Base) {
        self.base = base
    }

    /// Every call so far, in the order they began.
    public var calls: [Call] { log.withLock { $0 } }

    /// The operations called so far, in order.
    public var operations: [RepositoryOperation] { calls.map(\.operation) }

    /// The calls of one operation.
    public func calls(to operation: RepositoryOperation) -> [Call] {
        calls.filter { $0.operation == operation }
    }

    /// Forgets every recorded call.
    public func reset() {
        log.withLock { $0.removeAll() }
    }

    private func record<T>(
        _ operation: RepositoryOperation, ids: [ID] = [], entities: [Entity] = [],
        query: Query<Entity>? = nil,
        _ body: () async throws -> T
    ) async throws -> T {
        let position = log.withLock { log in
            log.append(Call(operation: operation, ids: ids, entities: entities, query: query, error: nil))
            return log.count - 1
        }
        do {
            return try await body()
        } catch {
            log.withLock { log in
                if position < log.count { log[position].error = error }
            }
            throw error
        }
    }

    /// Records the call, then fetches from ``base``.
    public func fetch(id: ID) async throws -> Entity? {
        try await record(.fetch, ids: [id]) { try await base.fetch(id: id) }
    }

    /// Records the call, then fetches from ``base``.
    public func fetchAll() async throws -> [Entity] {
        try await record(.fetchAll) { try await base.fetchAll() }
    }

    /// Records the call, then saves to ``base``.
    public func save(_ entity: Entity) async throws {
        try await record(.save, entities: [entity]) { try await base.save(entity) }
    }

    /// Records the call, then saves to ``base``.
    public func save(contentsOf entities: [Entity]) async throws {
        try await record(.saveContentsOf, entities: entities) { try await base.save(contentsOf: entities) }
    }

    /// Records the call, then deletes from ``base``.
    public func delete(id: ID) async throws {
        try await record(.delete, ids: [id]) { try await base.delete(id: id) }
    }

    /// Records the call, then deletes from ``base``.
    public func deleteAll() async throws {
        try await record(.deleteAll) { try await base.deleteAll() }
    }

    /// Records the call, then fetches from ``base``.
    public func fetch(ids: [ID]) async throws -> [Entity] {
        try await record(.fetchIDs, ids: ids) { try await base.fetch(ids: ids) }
    }

    /// Records the call, then queries ``base``.
    public func fetch(_ query: Query<Entity>) async throws -> [Entity] {
        try await record(.fetchQuery, query: query) { try await base.fetch(query) }
    }

    /// Records the call, then counts ``base``.
    public func count() async throws -> Int {
        try await record(.count) { try await base.count() }
    }

    /// Records the call, then counts what ``base`` answers to the query.
    public func count(_ query: Query<Entity>) async throws -> Int {
        try await record(.countQuery, query: query) { try await base.count(query) }
    }

    /// Records the call, then deletes from ``base``.
    public func delete(ids: [ID]) async throws {
        try await record(.deleteIDs, ids: ids) { try await base.delete(ids: ids) }
    }
}
