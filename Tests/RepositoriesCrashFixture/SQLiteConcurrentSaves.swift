import Foundation
import Repositories
import RepositoriesSQLite
import RepositoriesTestSupport

/// The `sqlite-concurrent-saves` mode: eight writers replace their own 20 entities in one
/// `SQLiteRepository` forever, so their saves meet in group commits, and print
/// "id revision" for each entity once the call that saved it returned. Every fifth save of a
/// writer is a batch of all its entities. Revisions start above `firstRevision` and only
/// grow, so the parent can tell an acknowledged value from an older one.
func saveConcurrentlyIntoSQLite(at url: URL, firstRevision: Int) async throws {
    let store = try await SQLiteRepository<FixtureEntity>(fileURL: url)
    say("ready")
    try await replaceForever(in: store, writers: 8, firstRevision: firstRevision)
}
