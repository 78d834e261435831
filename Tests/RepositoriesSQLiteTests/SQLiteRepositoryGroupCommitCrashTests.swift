import Foundation
import Repositories
import RepositoriesSQLite
import RepositoriesTestSupport
import RepositoriesTesting
import Testing

/// Group commit under `kill -9`: eight writers in a child process (`RepositoriesCrashFixture
/// sqlite-concurrent-saves`) share commits until the child is killed at a random moment;
/// every save that returned is in the database with its value.
@Suite(.serialized) struct SQLiteRepositoryGroupCommitCrashTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// At least 20 kills in CI; `REPOSITORIES_CRASH_KILLS` asks for more.
    var kills: Int {
        ChildProcess.killCount
    }

    @Test func everyAcknowledgedConcurrentSaveSurvivesSIGKILL() async throws {
        let url = directory.file("concurrent.sqlite")
        var random = SeededRandomNumberGenerator(seed: 1_515)
        var acknowledged: [Int: Int] = [:]  // id → newest acknowledged revision
        var nextRevision = 0
        var acknowledgements = 0
        for round in 0..<kills {
            let child = try ChildProcess(["sqlite-concurrent-saves", url.path, String(nextRevision)])
            try await child.waitForLine("ready")
            try await Task.sleep(for: .milliseconds(Int.random(in: 5...150, using: &random)))
            for line in await child.kill() {
                let fields = line.split(separator: " ").compactMap { Int($0) }
                guard fields.count == 2 else { continue }
                acknowledgements += 1
                acknowledged[fields[0]] = max(acknowledged[fields[0]] ?? 0, fields[1])
                nextRevision = max(nextRevision, fields[1])
            }
            nextRevision += 1_000

            let store = try await SQLiteRepository<FixtureEntity>(fileURL: url)
            let stored = Dictionary(uniqueKeysWithValues: try await store.fetchAll().map { ($0.id, $0) })
            try await store.close()
            for (id, revision) in acknowledged {
                let entity = stored[id]
                let storedRevision = entity?.revision ?? -1
                #expect(
                    storedRevision >= revision && entity == FixtureEntity.make(id, revision: storedRevision),
                    "round \(round): \(id) acknowledged at revision \(revision), stored \(String(describing: entity))"
                )
            }
        }
        #expect(acknowledgements > kills * 8, "the writers acknowledged too few saves to prove anything")
    }
}
