import Foundation
import Repositories
import RepositoriesSQLite
import RepositoriesTestSupport

/// The `sqlite-open` mode: prints "opening", opens a `SQLiteRepository` of `FixtureEntity`
/// (which, for a table an earlier release wrote, makes its change log and numbers every row
/// in one transaction), prints "opened", closes it and prints "closed". The parent kills it
/// with SIGKILL at some moment of the open.
///
/// As `IndexedFixtureEntity` (the `sqlite-open-indexed` mode), the open of a table written
/// without field columns adds and fills them, in one transaction.
func openSQLiteAndClose<Entity: Codable & Identifiable & Sendable>(
    at url: URL, as type: Entity.Type = FixtureEntity.self
) async throws where Entity.ID: Codable & Sendable {
    say("opening")
    let store = try await SQLiteRepository<Entity>(
        fileURL: url, options: SQLiteOptions(tableName: "FixtureEntity"))
    say("opened")
    try await store.close()
    say("closed")
}
