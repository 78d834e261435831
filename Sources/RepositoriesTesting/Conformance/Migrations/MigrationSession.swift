import Repositories

/// What one migration law sees: the locations it opened, the stores it opened there, and
/// every step, so a broken law can show the steps that led to it.
///
/// Used by one task at a time.
final class MigrationSession {
    let chains = CountedChains()
    /// Whether `fetchAll()` order is checked (the store keeps insertion order).
    let ordered: Bool
    private let makeLocation: @Sendable () async throws -> any MigrationStoreLocation
    private var locations: [any MigrationStoreLocation] = []
    private(set) var operations: [String] = []

    init(ordered: Bool, makeLocation: @escaping @Sendable () async throws -> any MigrationStoreLocation) {
        self.ordered = ordered
        self.makeLocation = makeLocation
    }

    /// A new, empty location, removed when the law is done.
    func newLocation() async throws -> any MigrationStoreLocation {
        let location = try await makeLocation()
        locations.append(location)
        note("a new location (#\(locations.count))")
        return location
    }

    func note(_ step: String) { operations.append(step) }

    /// Opens `location` with `migrations`, runs `body` on the store, and closes it, also
    /// when `body` throws.
    func withStore<Entity: VersionedConformanceEntity, Result>(
        at location: any MigrationStoreLocation, _ migrations: Migrations<Entity>,
        withoutMigrations: Bool = false, _ body: (TracedStore<Entity>) async throws -> Result
    ) async throws -> Result {
        let how =
            withoutMigrations
            ? "without migrations" : "at version \(migrations.currentVersion) (\(Entity.self))"
        let opened: OpenedStore<Entity>
        do {
            opened =
                withoutMigrations
                ? try await location.openWithoutMigrations() : try await location.open(migrations: migrations)
        } catch {
            note("open \(how) → threw \(error)")
            throw error
        }
        note("open \(how)")
        let result: Result
        do {
            result = try await body(TracedStore(opened.repository, session: self))
        } catch {
            // The body's error is the one the law reports; a failed close is noted with it.
            await close(opened)
            throw error
        }
        try await opened.close()
        note("close")
        return result
    }

    /// Closes `opened`, noting a close that throws as a step instead of throwing it.
    func close<Entity: VersionedConformanceEntity>(_ opened: OpenedStore<Entity>) async {
        do {
            try await opened.close()
            note("close")
        } catch {
            note("close → threw \(error)")
        }
    }

    /// Removes every location the law made; a failure is a note, not a broken law.
    func removeLocations() async -> [String] {
        var problems: [String] = []
        for location in locations {
            do {
                try await location.remove()
            } catch {
                problems.append("MigrationStoreLocation.remove() threw \(error)")
            }
        }
        return problems
    }

    // MARK: Checks

    func expect(_ condition: Bool, _ message: @autoclosure () -> String) throws {
        if !condition { throw LawBroken(message()) }
    }

    /// Checks `actual` holds `expected`, in order when the store keeps insertion order,
    /// naming the first entity that differs.
    func expectSame<Entity: VersionedConformanceEntity>(
        _ actual: [Entity], _ expected: [Entity], _ context: String
    ) throws {
        let (actualList, expectedList) =
            ordered
            ? (actual, expected) : (actual.sorted { $0.id < $1.id }, expected.sorted { $0.id < $1.id })
        if actualList == expectedList { return }
        var message =
            "fetchAll() \(context) returned \(Self.describe(actualList)), expected \(Self.describe(expectedList))"
        if let differing = zip(actualList, expectedList).first(where: { $0 != $1 }) {
            message += "; the first that differs is \(differing.0), expected \(differing.1)"
        }
        throw LawBroken(message)
    }

    static func describe<Entity: VersionedConformanceEntity>(_ entity: Entity) -> String {
        "#\(entity.id) r\(entity.revision)"
    }

    static func describe<Entity: VersionedConformanceEntity>(_ entities: [Entity]) -> String {
        let shown = entities.prefix(12).map(describe).joined(separator: ", ")
        return "[\(shown)\(entities.count > 12 ? ", … \(entities.count) in all" : "")]"
    }
}

/// A store of a ``MigrationSession``: every call is noted as a step.
struct TracedStore<Entity: VersionedConformanceEntity> {
    let repository: any Repository<Entity, Int>
    let session: MigrationSession

    init(_ repository: any Repository<Entity, Int>, session: MigrationSession) {
        self.repository = repository
        self.session = session
    }

    private func traced<T>(_ step: String, _ body: () async throws -> T) async throws -> T {
        do {
            let value = try await body()
            session.note(step)
            return value
        } catch {
            session.note("\(step) → threw \(error)")
            throw error
        }
    }

    func save(_ entity: Entity) async throws {
        try await traced("save(\(MigrationSession.describe(entity)))") { try await repository.save(entity) }
    }

    func save(contentsOf entities: [Entity]) async throws {
        try await traced("save(contentsOf: \(MigrationSession.describe(entities)))") {
            try await repository.save(contentsOf: entities)
        }
    }

    func delete(id: Int) async throws {
        try await traced("delete(id: #\(id))") { try await repository.delete(id: id) }
    }

    func delete(ids: [Int]) async throws {
        try await traced("delete(ids: [\(ids.map { "#\($0)" }.joined(separator: ", "))])") {
            try await repository.delete(ids: ids)
        }
    }

    func deleteAll() async throws {
        try await traced("deleteAll()") { try await repository.deleteAll() }
    }

    func fetchAll() async throws -> [Entity] {
        let all = try await traced("fetchAll()") { try await repository.fetchAll() }
        session.note("  → \(MigrationSession.describe(all))")
        return all
    }

    func fetch(id: Int) async throws -> Entity? {
        try await traced("fetch(id: #\(id))") { try await repository.fetch(id: id) }
    }

    func count() async throws -> Int {
        try await traced("count()") { try await repository.count() }
    }
}
