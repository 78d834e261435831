import Foundation
import Repositories
import RepositoriesPostgres
import RepositoriesTestSupport
import Synchronization

/// Opens `table` with version 2 of the stock item, upgrading what version 1 wrote, and kills
/// itself with SIGKILL inside the upgrade of its `killAt`-th row (the rows before it already
/// written back in the upgrade's transaction, which is never committed). Prints "upgrading"
/// first, and "upgraded" if the kill never came.
func upgradePostgresUntilKilled(connection: String, table: String, killAt: Int) async throws {
    let upgraded = Mutex(0)
    let migrations = try StockItems.migrations { _ in
        let count = upgraded.withLock { count in
            count += 1
            return count
        }
        if count == killAt { kill(getpid(), SIGKILL) }
    }
    say("upgrading")
    let store = try await PostgresRepository<StockItems.V2>(
        connectionString: connection, options: PostgresOptions(tableName: table, poolSize: 1),
        migrations: migrations)
    say("upgraded")
    await store.close()
}

/// Opens the FixtureEntity rows of `table` as ``IndexedFixtureEntity``, which declares two
/// fields (adding and filling their columns), printing "opening" before, "opened" after, and
/// "closed" once closed.
func openPostgresIndexed(connection: String, table: String) async throws {
    say("opening")
    let store = try await PostgresRepository<IndexedFixtureEntity>(
        connectionString: connection, options: PostgresOptions(tableName: table, poolSize: 1))
    say("opened")
    await store.close()
    say("closed")
}
