import Foundation
import Repositories
import RepositoriesTestSupport
import RepositoriesTesting
import Testing

@Suite struct UserDefaultsRepositoryTests {
    /// A suite of its own for each repository, so tests never share a key.
    static func makeDefaults() -> (UserDefaults, String) {
        let name = "repositories-tests-\(UUID().uuidString)"
        return (UserDefaults(suiteName: name)!, name)
    }

    func suite<E: Codable & Identifiable & Sendable & Equatable>(
        _ type: E.Type, operationsPerTask: Int = 1_000, makeEntity: @escaping @Sendable (Int, Int) -> E
    ) -> RepositoryConformance<UserDefaultsRepository<E>> where E.ID: Sendable {
        var options = ConformanceOptions<UserDefaultsRepository<E>>(operationsPerTask: operationsPerTask)
        // A new instance over the same defaults and key reads what the last one wrote.
        options.reopen = { store in
            UserDefaultsRepository(key: store.key, defaults: UserDefaults(suiteName: store.key)!)
        }
        options.tearDown = { store in
            UserDefaults(suiteName: store.key)?.removePersistentDomain(forName: store.key)
        }
        if E.self == ConformanceEntity.self {
            options.makeUnencodableEntity = { ConformanceEntity.unencodable(index: $0) as! E }
        }
        return RepositoryConformance(
            options: options,
            makeRepository: {
                let (defaults, name) = Self.makeDefaults()
                return UserDefaultsRepository<E>(key: name, defaults: defaults)
            }, makeEntity: makeEntity)
    }

    /// The full load with Int IDs, on an entity of up to 1.5 KB.
    @Test func conformsWithIntIDs() async throws {
        try await suite(FixtureEntity.self) { index, revision in
            var entity = FixtureEntity.make(index)
            entity.text = "revision \(revision)"
            return entity
        }.run()
    }

    /// The suite's own fixture puts 128 KiB payloads among its keys, so every write
    /// rewrites hundreds of KiB through `UserDefaults` (the O(n) cost its doc comment warns
    /// of; about 80 ms a write on Linux). It runs here at a tenth of the load, for its
    /// unicode, NUL characters, dates and optionals.
    @Test func conformsWithTheSuitesFixture() async throws {
        var suite = suite(ConformanceEntity.self, operationsPerTask: 100, makeEntity: ConformanceEntity.make)
        suite.options.randomizedRuns = 5
        try await suite.run()
    }

    /// The migration area: one key of one suite, read again with each version of the
    /// suite's versioned fixture.
    @Test func migrations() async throws {
        var options = ConformanceOptions<UserDefaultsRepository<ConformanceEntity>>()
        options.makeMigrationStoreLocation = { DefaultsLocation() }
        try await RepositoryConformance(
            options: options, makeRepository: { UserDefaultsRepository(key: Self.makeDefaults().1) }
        ).migrations()
    }

    @Test func conformsWithStringIDs() async throws {
        try await suite(Note.self, makeEntity: Note.make).run()
    }

    @Test func conformsWithUUIDIDs() async throws {
        try await suite(Ticket.self, makeEntity: Ticket.make).run()
    }

    struct Person: Codable, Identifiable, Sendable, Equatable {
        var id: Int
        var name: String
    }

    @Test func aValueThatDoesNotDecodeThrowsNamingTheElementNeverAnEmptyList() async throws {
        let (defaults, name) = Self.makeDefaults()
        defer { defaults.removePersistentDomain(forName: name) }
        defaults.set(Data(#"[{"id": 1, "name": "Aziz"}, {"id": "two"}]"#.utf8), forKey: "people")
        let people = UserDefaultsRepository<Person>(key: "people", defaults: defaults)
        let error = await #expect(throws: RepositoryError.self) { try await people.fetchAll() }
        #expect(error?.code == .decodingFailed)
        #expect(error?.record == "element 1 of key \"people\"")
        // A write must not replace what could not be read.
        await #expect(throws: RepositoryError.self) { try await people.save(Person(id: 3, name: "Lola")) }
        #expect(defaults.data(forKey: "people") == Data(#"[{"id": 1, "name": "Aziz"}, {"id": "two"}]"#.utf8))
    }

    @Test func aValueOfAnotherTypeThrowsDecodingFailed() async throws {
        let (defaults, name) = Self.makeDefaults()
        defer { defaults.removePersistentDomain(forName: name) }
        defaults.set(["Aziz", "Lola"], forKey: "people")
        let error = await #expect(throws: RepositoryError.self) {
            try await UserDefaultsRepository<Person>(key: "people", defaults: defaults).count()
        }
        #expect(error?.code == .decodingFailed)
        #expect(error?.description.contains("not the JSON data") == true)
    }

    struct Reading: Codable, Identifiable, Sendable, Equatable {
        var id: Int
        var value: Double
    }

    @Test func anEntityThatCannotBeEncodedLeavesTheValueAsItWas() async throws {
        let (defaults, name) = Self.makeDefaults()
        defer { defaults.removePersistentDomain(forName: name) }
        let readings = UserDefaultsRepository<Reading>(key: "readings", defaults: defaults)
        try await readings.save(Reading(id: 1, value: 2))
        let error = await #expect(throws: RepositoryError.self) {
            try await readings.save(contentsOf: [Reading(id: 2, value: 1), Reading(id: 3, value: .nan)])
        }
        #expect(error?.code == .encodingFailed)
        #expect(error?.id == "3")
        #expect(try await readings.fetchAll() == [Reading(id: 1, value: 2)])
    }

    @Test func twoInstancesOverOneKeyLoseNoWrites() async throws {
        let (defaults, name) = Self.makeDefaults()
        defer { defaults.removePersistentDomain(forName: name) }
        let first = UserDefaultsRepository<Person>(key: "people", defaults: defaults)
        let second = UserDefaultsRepository<Person>(key: "people", defaults: defaults)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for id in 0..<100 {
                group.addTask { try await (id % 2 == 0 ? first : second).save(Person(id: id, name: "\(id)")) }
            }
            try await group.waitForAll()
        }
        #expect(try await first.count() == 100)
    }
}

/// A key of a `UserDefaults` suite of its own, which the migration area reads with each
/// version of its fixture: a new repository over the key is a reopen.
struct DefaultsLocation: MigrationStoreLocation {
    let name = "repositories-migration-conformance-\(UUID().uuidString)"

    private var defaults: UserDefaults {
        get throws {
            guard let defaults = UserDefaults(suiteName: name) else {
                throw RepositoryError.unavailable("UserDefaults(suiteName: \(name)) returned nil")
            }
            return defaults
        }
    }

    func open<Entity: VersionedConformanceEntity>(
        migrations: Migrations<Entity>
    ) async throws -> OpenedStore<Entity> {
        OpenedStore(UserDefaultsRepository<Entity>(key: name, defaults: try defaults, migrations: migrations))
        {}
    }

    func openWithoutMigrations<Entity: VersionedConformanceEntity>() async throws -> OpenedStore<Entity> {
        OpenedStore(UserDefaultsRepository<Entity>(key: name, defaults: try defaults)) {}
    }

    func remove() throws {
        try defaults.removePersistentDomain(forName: name)
    }
}
