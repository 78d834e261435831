import Repositories
import Synchronization

/// An in-memory feed that can run a closure once, just before the next page is read (a write
/// landing between a sync's push and its pull), and counts the pages asked for a subset and
/// the plain ones.
final class HookedFeed<Entity: Identifiable & Sendable>: ChangeFeedRepository, Sendable
where Entity.ID: Sendable {
    typealias ID = Entity.ID
    let base: InMemoryRepository<Entity>
    private let hook = Mutex<(@Sendable () async throws -> Void)?>(nil)
    private let counts = Mutex((subset: 0, plain: 0))

    init(_ entities: [Entity] = []) { base = InMemoryRepository(entities) }

    /// Runs `body` before the next page is read, once.
    func beforeNextPage(_ body: @escaping @Sendable () async throws -> Void) { hook.withLock { $0 = body } }

    /// How many pages were asked for a subset, and how many without one.
    var calls: (subset: Int, plain: Int) { counts.withLock { $0 } }

    func changes(since cursor: SyncCursor?, limit: Int) async throws -> ChangePage<Entity, ID> {
        try await runHook()
        counts.withLock { $0.plain += 1 }
        return try await base.changes(since: cursor, limit: limit)
    }

    func changes(since cursor: SyncCursor?, limit: Int, in subset: Query<Entity>) async throws
        -> ChangePage<Entity, ID>
    {
        try await runHook()
        counts.withLock { $0.subset += 1 }
        return try await base.changes(since: cursor, limit: limit).restricted(to: subset)
    }

    private func runHook() async throws {
        let body = hook.withLock { hook in
            defer { hook = nil }
            return hook
        }
        try await body?()
    }

    func fetchAll() async throws -> [Entity] { try await base.fetchAll() }
    func fetch(id: ID) async throws -> Entity? { try await base.fetch(id: id) }
    func fetch(ids: [ID]) async throws -> [Entity] { try await base.fetch(ids: ids) }
    func save(_ entity: Entity) async throws { try await base.save(entity) }
    func save(contentsOf entities: [Entity]) async throws { try await base.save(contentsOf: entities) }
    func delete(id: ID) async throws { try await base.delete(id: id) }
    func delete(ids: [ID]) async throws { try await base.delete(ids: ids) }
    func deleteAll() async throws { try await base.deleteAll() }
}
