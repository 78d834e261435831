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
