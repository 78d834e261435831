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
    try await withThrowingTaskGroup(of: Void.self) { group in
        for writer in 0..<8 {
            group.addTask {
                let ids = (0..<20).map { writer * 100 + $0 }
                var revision = firstRevision
                while true {
                    revision += 1
                    if revision % 5 == 0 {
                        try await store.save(
                            contentsOf: ids.map { FixtureEntity.make($0, revision: revision) })
                        for id in ids { say("\(id) \(revision)") }
                    } else {
                        let id = ids[revision % ids.count]
                        try await store.save(FixtureEntity.make(id, revision: revision))
                        say("\(id) \(revision)")
                    }
                }
            }
        }
        try await group.waitForAll()
    }
}
