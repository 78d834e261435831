import Foundation
import Repositories
import RepositoriesPostgres
import RepositoriesTestSupport
import RepositoriesTesting

/// Repositories over the shared test server, each on a table of its own.
enum PostgresStores {
    /// A new table name, unique to the call.
    static func tableName(_ prefix: String = "t") -> String {
        "\(prefix)_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16).lowercased())"
    }

    /// A repository on a new table of the shared server; its connections carry
    /// `applicationName`, when given, so a test can find them in `pg_stat_activity`.
    static func make<Entity: Codable & Identifiable & Sendable>(
        _ type: Entity.Type = Entity.self, table: String = tableName(), poolSize: Int = 2,
        applicationName: String? = nil
    ) async throws -> PostgresRepository<Entity> where Entity.ID: Codable & Sendable {
        let server = try await PostgresTestServer.shared()
        let named = applicationName.map { " application_name=\($0)" } ?? ""
        return try await PostgresRepository<Entity>(
            connectionString: server.connectionString + named,
            options: PostgresOptions(tableName: table, poolSize: poolSize))
    }

    /// Conformance options: reopen closes the repository and opens a new one on its table;
    /// tear-down closes it and drops the table.
    static func options<Entity>(
        makeUnencodable: (@Sendable (Int) -> Entity)? = nil
    ) -> ConformanceOptions<PostgresRepository<Entity>> {
        var options = ConformanceOptions<PostgresRepository<Entity>>()
        options.reopen = { store in
            await store.close()
            return try await make(Entity.self, table: store.tableName)
        }
        options.tearDown = { store in
            await store.close()
            try await drop(store.tableName)
        }
        options.makeUnencodableEntity = makeUnencodable
        options.makeMigrationStoreLocation = { PostgresLocation(table: tableName("m")) }
        // The concurrency area's 8 × 1,000 operations are round trips to a server here.
        options.operationsPerTask = 250
        return options
    }

    /// Creates `name` as an earlier release did: the body `bytea`, no `schema_version`.
    static func createEarlierReleaseTable(_ name: String, integerKeys: Bool = true) async throws {
        try await PostgresTestServer.shared().psql(
            """
            CREATE TABLE "\(name)" (seq bigint GENERATED ALWAYS AS IDENTITY,
                id \(integerKeys ? "bigint" : "text COLLATE \"C\"") PRIMARY KEY,
                body bytea NOT NULL, version bigint NOT NULL)
            """)
    }

    /// Drops a repository's table and the feed's and keys' tables beside it.
    static func drop(_ name: String) async throws {
        try await PostgresTestServer.shared().psql(
            "DROP TABLE IF EXISTS \"\(name)\", \"\(name)_log\", \"\(name)_feed\", \"\(name)_keys\"")
    }
}

/// One table of the shared server, opened by the migration area with each version of its
/// fixture: the name is fixed, since by default it follows the entity's type.
struct PostgresLocation: MigrationStoreLocation {
    let table: String

    func open<Entity: VersionedConformanceEntity>(migrations: Migrations<Entity>) async throws
        -> OpenedStore<Entity>
    {
        let server = try await PostgresTestServer.shared()
        let store = try await PostgresRepository<Entity>(
            connectionString: server.connectionString,
            options: PostgresOptions(tableName: table, poolSize: 2), migrations: migrations)
        return OpenedStore(store) { await store.close() }
    }

    func openWithoutMigrations<Entity: VersionedConformanceEntity>() async throws -> OpenedStore<Entity> {
        let server = try await PostgresTestServer.shared()
        let store = try await PostgresRepository<Entity>(
            connectionString: server.connectionString, options: PostgresOptions(tableName: table, poolSize: 2)
        )
        return OpenedStore(store) { await store.close() }
    }

    func remove() async throws {
        try await PostgresStores.drop(table)
    }
}
