import Repositories
import Synchronization

/// A remote with a change feed (an `InMemoryRepository`'s) that counts what it serves: the
/// entities it returned, by whole reads and by pages, and the calls of each kind. With
/// `feed` off it is a plain repository (the feed's calls are still there, but a sync reads
/// the whole collection, since it only uses a feed it finds through `ChangeFeedRepository`).
final class CountingFeed<Entity: Identifiable & Sendable>: ChangeFeedRepository, Sendable
where Entity.ID: Sendable {
    typealias ID = Entity.ID

    struct Counts: Sendable, Equatable {
        var entitiesServed = 0
        var fetchAllCalls = 0
        var pageCalls = 0
    }

    let base: InMemoryRepository<Entity>
    private let counts = Mutex(Counts())

    init(_ entities: [Entity] = []) {
        base = InMemoryRepository(entities)
    }

    var served: Counts { counts.withLock { $0 } }
    func resetCounts() { counts.withLock { $0 = Counts() } }

    func changes(since cursor: SyncCursor?, limit: Int) async throws -> ChangePage<Entity, ID> {
        let page = try await base.changes(since: cursor, limit: limit)
        counts.withLock {
            $0.pageCalls += 1
            $0.entitiesServed += page.saved.count
        }
        return page
    }

    func fetchAll() async throws -> [Entity] {
        let all = try await base.fetchAll()
        counts.withLock {
            $0.fetchAllCalls += 1
            $0.entitiesServed += all.count
        }
        return all
    }

    func fetch(id: ID) async throws -> Entity? {
        let entity = try await base.fetch(id: id)
        counts.withLock { $0.entitiesServed += entity == nil ? 0 : 1 }
        return entity
    }

    func fetch(ids: [ID]) async throws -> [Entity] {
        let entities = try await base.fetch(ids: ids)
        counts.withLock { $0.entitiesServed += entities.count }
        return entities
    }

    func save(_ entity: Entity) async throws { try await base.save(entity) }
    func save(contentsOf entities: [Entity]) async throws { try await base.save(contentsOf: entities) }
    func delete(id: ID) async throws { try await base.delete(id: id) }
    func delete(ids: [ID]) async throws { try await base.delete(ids: ids) }
    func deleteAll() async throws { try await base.deleteAll() }
    func count() async throws -> Int { try await base.count() }
}
