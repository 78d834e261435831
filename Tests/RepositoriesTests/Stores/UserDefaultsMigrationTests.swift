import Foundation
import Repositories
import Testing

/// `UserDefaultsRepository(migrations:)`: a value older versions wrote is upgraded on first
/// read and written back once; one from a newer version is refused and left as it was.
@Suite struct UserDefaultsMigrationTests {
    /// A `UserDefaults` suite and key of the test's own.
    private static func makeDefaults() -> (UserDefaults, String) {
        let name = "repositories-migration-tests-\(UUID().uuidString)"
        return (UserDefaults(suiteName: name)!, name)
    }

    private static let v1 = (1...4).map { TodoV1.make($0) }

    @Test func versionOneStillWritesTheBareArrayOlderReleasesRead() async throws {
        let (defaults, key) = Self.makeDefaults()
        try await UserDefaultsRepository<TodoV1>(key: key, defaults: defaults).save(contentsOf: Self.v1)
        let stored = try #require(defaults.data(forKey: key))
        #expect(try JSONDecoder().decode([TodoV1].self, from: stored) == Self.v1)
    }

    @Test func aValueOlderVersionsWroteIsUpgradedOnFirstReadAndWrittenBackStamped() async throws {
        let (defaults, key) = Self.makeDefaults()
        try await UserDefaultsRepository<TodoV1>(key: key, defaults: defaults).save(contentsOf: Self.v1)

        let todos = UserDefaultsRepository<Todo>(
            key: key, defaults: defaults, migrations: try Todo.migrations())
        #expect(try await todos.fetchAll() == Self.v1.map(Todo.init(upgrading:)))
        let stored = try #require(defaults.data(forKey: key))
        #expect(String(decoding: stored.prefix(24), as: UTF8.self) == #"{"version":2,"entities":"#)

        // A save keeps the stamp; a third version reads both generations through the chain.
        try await todos.save(Todo(upgrading: TodoV1.make(9)))
        let v3 = UserDefaultsRepository<TodoV3>(
            key: key, defaults: defaults, migrations: try TodoV3.migrations())
        #expect(try await v3.fetchAll().map(\.id) == [1, 2, 3, 4, 9])
        #expect(
            String(decoding: try #require(defaults.data(forKey: key)).prefix(12), as: UTF8.self)
                == #"{"version":3"#)
    }

    struct FixtureMissing: Error {
        var name: String
    }

    /// The bytes of the checked-in value a release before versions wrote, under `key` of a
    /// `UserDefaults` suite of the test's own.
    private static func loadFixture() throws -> (UserDefaults, key: String, bytes: Data) {
        let name = "Migrations/UserDefaults/todos-v1.json"
        guard let url = Bundle.module.url(forResource: "Fixtures", withExtension: nil)?.appending(path: name)
        else { throw FixtureMissing(name: name) }
        let bytes = try Data(contentsOf: url)
        let (defaults, key) = makeDefaults()
        defaults.set(bytes, forKey: key)
        return (defaults, key, bytes)
    }

    /// What the fixture holds, in order, as version 1 wrote it: every field spelled out once,
    /// so a change of the fixture's meaning is seen here.
    private static let fixtureTodos = [
        TodoV1(
            id: 1, title: "todo 1 — çay ☕️ 𝄞", done: false,
            created: Date(timeIntervalSinceReferenceDate: 721_779_200.5),
            tags: ["tag0"], note: "note 1"),
        TodoV1(
            id: 2, title: "todo 2, renamed", done: true,
            created: Date(timeIntervalSinceReferenceDate: 721_865_601),
            tags: ["tag0", "tag1"], note: "note 2"),
        TodoV1(
            id: 4, title: "todo 4 — çay ☕️ 𝄞", done: true,
            created: Date(timeIntervalSinceReferenceDate: 722_038_402),
            tags: ["tag0"], note: "note 4"),
        TodoV1(
            id: 5, title: "todo 5 — çay ☕️ 𝄞", done: false,
            created: Date(timeIntervalSinceReferenceDate: 722_124_802.5), tags: ["tag0", "tag1"],
            note: "note 5"),
        TodoV1(
            id: 6, title: "todo 6 — çay ☕️ 𝄞", done: true,
            created: Date(timeIntervalSinceReferenceDate: 722_211_203),
            tags: [], note: nil),
    ]

    @Test func theFixtureReadsUnchangedAtVersionOne() async throws {
        let (defaults, key, bytes) = try Self.loadFixture()
        let todos = UserDefaultsRepository<TodoV1>(key: key, defaults: defaults)
        #expect(try await todos.fetchAll() == Self.fixtureTodos)
        #expect(defaults.data(forKey: key) == bytes, "reading at version 1 writes nothing")
    }

    @Test func theFixtureOpensAtVersionTwoWithEveryFieldAndIsWrittenBackStamped() async throws {
        let (defaults, key, _) = try Self.loadFixture()
        let todos = UserDefaultsRepository<Todo>(
            key: key, defaults: defaults, migrations: try Todo.migrations())
        #expect(try await todos.fetchAll() == Self.fixtureTodos.map(Todo.init(upgrading:)))
        #expect(try await todos.fetch(id: 2)?.text == "todo 2, renamed")
        let stored = try #require(defaults.data(forKey: key))
        #expect(String(decoding: stored.prefix(24), as: UTF8.self) == #"{"version":2,"entities":"#)
        // A new repository over the key reads the stamped value as it is.
        let again = UserDefaultsRepository<Todo>(
            key: key, defaults: defaults, migrations: try Todo.migrations())
        #expect(try await again.fetchAll().map(\.id) == [1, 2, 4, 5, 6])
        #expect(defaults.data(forKey: key) == stored)
    }

    @Test func theFixtureOpensAtVersionThreeThroughTheChain() async throws {
        let (defaults, key, _) = try Self.loadFixture()
        let todos = UserDefaultsRepository<TodoV3>(
            key: key, defaults: defaults, migrations: try TodoV3.migrations())
        let expected = Self.fixtureTodos.map {
            TodoV3(id: $0.id, text: $0.title, pinned: false, priority: $0.done ? 0 : 1)
        }
        #expect(try await todos.fetchAll() == expected)
        let stored = try #require(defaults.data(forKey: key))
        #expect(String(decoding: stored.prefix(12), as: UTF8.self) == #"{"version":3"#)
    }

    @Test func aValueOfANewerVersionIsRefusedAndLeftAsItWas() async throws {
        let (defaults, key) = Self.makeDefaults()
        let v3 = UserDefaultsRepository<TodoV3>(
            key: key, defaults: defaults, migrations: try TodoV3.migrations())
        try await v3.save(TodoV3(id: 1, text: "from the future", pinned: true, priority: 0))
        let before = try #require(defaults.data(forKey: key))

        let older = UserDefaultsRepository<Todo>(
            key: key, defaults: defaults, migrations: try Todo.migrations())
        let read = await #expect(throws: RepositoryError.self) { _ = try await older.fetchAll() }
        let save = await #expect(throws: RepositoryError.self) {
            try await older.save(Todo(upgrading: TodoV1.make(2)))
        }
        let clear = await #expect(throws: RepositoryError.self) { try await older.deleteAll() }
        for error in [read, save, clear] {
            #expect(error?.code == .writtenByNewerVersion)
            #expect(error?.reason.contains("version 3") == true, "\(error?.reason ?? "")")
        }
        #expect(defaults.data(forKey: key) == before, "the newer app's value is untouched")
    }

    @Test func aValueNoUpgradeCanReadNamesTheKeyAndVersionAndIsLeftAsItWas() async throws {
        let (defaults, key) = Self.makeDefaults()
        defaults.set(Data(#"[{"id": 1, "name": "not a todo"}]"#.utf8), forKey: key)
        let before = try #require(defaults.data(forKey: key))

        let todos = UserDefaultsRepository<Todo>(
            key: key, defaults: defaults, migrations: try Todo.migrations())
        let error = await #expect(throws: RepositoryError.self) { _ = try await todos.fetchAll() }
        #expect(error?.code == .decodingFailed)
        let message = error.map { "\($0)" } ?? ""
        #expect(message.contains("element 0 of key \"\(key)\", written by entity version 1"), "\(message)")
        #expect(error?.recovery?.contains("upgrade from version 1") == true)
        #expect(defaults.data(forKey: key) == before)
    }
}
