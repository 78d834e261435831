import Foundation
import Repositories
import Synchronization

/// A store with one deliberate defect, over a correct in-memory store, so each test can
/// show the conformance suite catches that defect with the law that names it.
final class BrokenRepository<Entity: Identifiable & Sendable & Encodable>: Repository
where Entity.ID: Sendable {
    enum Defect: Sendable, CaseIterable {
        /// Every third `save(_:)` is acknowledged but not stored.
        case losesEveryThirdSave
        /// `save(contentsOf:)` encodes and stores one entity at a time, so a failure midway
        /// leaves the first part behind.
        case nonAtomicBatch
        /// `fetchAll()` returns the newest entity first.
        case reversedOrder
        /// `delete(id:)` of an absent ID throws.
        case throwsOnAbsentDelete
        /// `save(contentsOf:)` stores one entity at a time with suspensions between, so a
        /// reader can see half a batch.
        case tornBatches
        /// `delete(ids:)` forgets the last ID it is given.
        case deleteIDsSkipsLast
    }

    private let base = InMemoryRepository<Entity>()
    private let defect: Defect
    private let saves = Mutex(0)

    init(_ defect: Defect) {
        self.defect = defect
    }

    func fetch(id: Entity.ID) async throws -> Entity? { try await base.fetch(id: id) }

    func fetchAll() async throws -> [Entity] {
        let all = try await base.fetchAll()
        return defect == .reversedOrder ? all.reversed() : all
    }

    func save(_ entity: Entity) async throws {
        let number = saves.withLock { count in
            count += 1
            return count
        }
        if defect == .losesEveryThirdSave && number % 3 == 0 { return }
        try await base.save(entity)
    }

    func save(contentsOf entities: [Entity]) async throws {
        switch defect {
        case .nonAtomicBatch:
            for entity in entities {
                do {
                    _ = try JSONEncoder().encode(entity)
                } catch {
                    throw RepositoryError.encodingFailed(id: "\(entity.id)", underlying: error)
                }
                try await base.save(entity)
            }
        case .tornBatches:
            for entity in entities {
                try await base.save(entity)
                await Task.yield()
            }
        default:
            for entity in entities {
                _ = try JSONEncoder().encode(entity)
            }
            try await base.save(contentsOf: entities)
        }
    }

    func delete(id: Entity.ID) async throws {
        if defect == .throwsOnAbsentDelete, try await base.fetch(id: id) == nil {
            throw RepositoryError.notFound(id: id)
        }
        try await base.delete(id: id)
    }

    func deleteAll() async throws { try await base.deleteAll() }

    func delete(ids: [Entity.ID]) async throws {
        let doomed = defect == .deleteIDsSkipsLast ? Array(ids.dropLast()) : ids
        for id in doomed { try await delete(id: id) }
    }
}
