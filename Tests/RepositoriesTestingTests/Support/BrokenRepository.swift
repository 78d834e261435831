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
        /// `save(_:)` of a stored ID keeps the old entity (first write wins).
        case ignoresReplacement
        /// `count()` does not go down on a delete.
        case staleCount
        /// `fetch(_:)` ignores the query's sort keys.
        case ignoresSorting
        /// `fetch(_:)` treats a negative offset or limit as zero instead of rejecting it.
        case clampsNegativeBounds
        /// `fetch(_:)` ignores the query's conditions on declared fields.
        case ignoresConditions
        /// `count(_ query:)` counts every match, ignoring the query's offset and limit.
        case countIgnoresPaging
        /// `save(contentsOf:)` saves one entity at a time, checking for cancellation between
        /// them, and stops there.
        case stopsBatchOnCancellation
        /// Reopening loses the last write.
        case losesLastWriteOnReopen
        /// Keys entities by how their ID is spelled (its Unicode scalars), as a store that
        /// compares bytes does, so IDs that are `==` but spelled differently are two entities.
        case distinguishesEqualIDs
    }

    private let base: InMemoryRepository<Entity>
    private let defect: Defect
    private let saves = Mutex(0)
    private let deletes = Mutex(0)
    private let lastSaved = Mutex<Entity.ID?>(nil)
    /// The entities of a `distinguishesEqualIDs` store, in insertion order, by spelling.
    private let bySpelling: Mutex<[(spelling: [Unicode.Scalar], entity: Entity)]>

    init(_ defect: Defect) {
        self.defect = defect
        self.base = InMemoryRepository()
        self.bySpelling = Mutex([])
    }

    private init(_ defect: Defect, base: InMemoryRepository<Entity>) {
        self.defect = defect
        self.base = base
        self.bySpelling = Mutex([])
    }

    /// The same storage seen by a new instance, as after a close and reopen.
    func reopened() async throws -> BrokenRepository {
        if defect == .losesLastWriteOnReopen, let last = lastSaved.withLock({ $0 }) {
            try await base.delete(id: last)
        }
        return BrokenRepository(defect, base: base)
    }

    func fetch(id: Entity.ID) async throws -> Entity? {
        if defect == .distinguishesEqualIDs {
            let spelling = Self.spelling(of: id)
            return bySpelling.withLock { entries in entries.first { $0.spelling == spelling }?.entity }
        }
        return try await base.fetch(id: id)
    }

    func fetchAll() async throws -> [Entity] {
        if defect == .distinguishesEqualIDs { return bySpelling.withLock { $0.map(\.entity) } }
        let all = try await base.fetchAll()
        return defect == .reversedOrder ? all.reversed() : all
    }

    func save(_ entity: Entity) async throws {
        let number = saves.withLock { count in
            count += 1
            return count
        }
        if defect == .losesEveryThirdSave && number % 3 == 0 { return }
        if defect == .distinguishesEqualIDs { return bySpelling.withLock { Self.upsert(entity, into: &$0) } }
        if defect == .ignoresReplacement, try await base.fetch(id: entity.id) != nil { return }
        try await base.save(entity)
        lastSaved.withLock { $0 = entity.id }
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
        case .distinguishesEqualIDs:
            for entity in entities { _ = try JSONEncoder().encode(entity) }
            bySpelling.withLock { entries in
                for entity in entities { Self.upsert(entity, into: &entries) }
            }
        case .stopsBatchOnCancellation:
            // One suspension per entity, as a store doing I/O per entity has.
            for entity in entities {
                try Task.checkCancellation()
                try await base.save(entity)
                await Task.yield()
            }
        default:
            for entity in entities {
                _ = try JSONEncoder().encode(entity)
            }
            try await base.save(contentsOf: entities)
        }
        if let last = entities.last { lastSaved.withLock { $0 = last.id } }
    }

    func delete(id: Entity.ID) async throws {
        if defect == .throwsOnAbsentDelete, try await base.fetch(id: id) == nil {
            throw RepositoryError.notFound(id: id)
        }
        if defect == .distinguishesEqualIDs {
            let spelling = Self.spelling(of: id)
            return bySpelling.withLock { $0.removeAll { $0.spelling == spelling } }
        }
        if try await base.fetch(id: id) != nil { deletes.withLock { $0 += 1 } }
        try await base.delete(id: id)
    }

    func deleteAll() async throws {
        bySpelling.withLock { $0.removeAll() }
        deletes.withLock { $0 = 0 }
        try await base.deleteAll()
    }

    func delete(ids: [Entity.ID]) async throws {
        let doomed = defect == .deleteIDsSkipsLast ? Array(ids.dropLast()) : ids
        for id in doomed { try await delete(id: id) }
    }

    func count() async throws -> Int {
        if defect == .distinguishesEqualIDs { return bySpelling.withLock { $0.count } }
        let count = try await base.count()
        return defect == .staleCount ? count + deletes.withLock { $0 } : count
    }

    func count(_ query: Query<Entity>) async throws -> Int {
        var query = query
        if defect == .countIgnoresPaging {
            query.offset = 0
            query.limit = nil
        }
        return try await fetch(query).count
    }

    func fetch(_ query: Query<Entity>) async throws -> [Entity] {
        var query = query
        switch defect {
        case .ignoresSorting: query.sortKeys = []
        case .ignoresConditions:
            var unconditioned = Query<Entity>(
                sortedBy: query.sortKeys, offset: query.offset, limit: query.limit)
            unconditioned.predicates = query.predicates
            query = unconditioned
        case .clampsNegativeBounds:
            query.offset = max(0, query.offset)
            query.limit = query.limit.map { max(0, $0) }
        default: break
        }
        return try query.apply(to: try await fetchAll())
    }

    private static func spelling(of id: Entity.ID) -> [Unicode.Scalar] {
        Array(String(describing: id).unicodeScalars)
    }

    private static func upsert(
        _ entity: Entity, into entries: inout [(spelling: [Unicode.Scalar], entity: Entity)]
    ) {
        let spelling = spelling(of: entity.id)
        if let position = entries.firstIndex(where: { $0.spelling == spelling }) {
            entries[position].entity = entity
        } else {
            entries.append((spelling, entity))
        }
    }
}
