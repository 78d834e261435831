import Foundation
import Repositories
import RepositoriesSQLite
import RepositoriesTestSupport

/// The `sqlite-open` mode: prints "opening", opens a `SQLiteRepository` of `FixtureEntity`
/// (which, for a table an earlier release wrote, makes its change log and numbers every row
/// in one transaction), prints "opened", closes it and prints "closed". The parent kills it
/// with SIGKILL at some moment of the open.
func openSQLiteAndClose(at url: URL) async throws {
    say("opening")
    let store = try await SQLiteRepository<FixtureEntity>(fileURL: url)
    say("opened")
    try await store.close()
    say("closed")
}
