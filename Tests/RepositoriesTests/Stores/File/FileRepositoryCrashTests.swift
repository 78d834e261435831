import Foundation
import Repositories
import RepositoriesTestSupport
import RepositoriesTesting
import Testing

/// Real child processes, real files, real SIGKILLs.
@Suite(.serialized) struct FileRepositoryCrashTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// At least 20 kills in CI; `REPOSITORIES_CRASH_KILLS` asks for more.
    var kills: Int {
        ChildProcess.killCount
    }

    @Test func everyAcknowledgedSaveSurvivesSIGKILL() async throws {
        let url = directory.file()
        var random = SeededRandomNumberGenerator(seed: 2_026)
        var acknowledged = Set<Int>()
        var next = 0
        for round in 0..<kills {
            let child = try ChildProcess(["save-loop", url.path, String(next)])
            try await child.waitForLine("ready")
            try await Task.sleep(for: .milliseconds(Int.random(in: 5...120, using: &random)))
            let printed = await child.kill().compactMap(Int.init)
            acknowledged.formUnion(printed)
            next = (printed.max() ?? next) + 100

            let store = try await FileRepository<FixtureEntity>(fileURL: url)
            let stored = Dictionary(uniqueKeysWithValues: try await store.fetchAll().map { ($0.id, $0) })
            let lost = acknowledged.filter { stored[$0] != FixtureEntity.make($0) }
            #expect(
                lost.isEmpty,
                "round \(round): acknowledged IDs lost or damaged after SIGKILL: \(lost.sorted().prefix(20))")
            try await store.close()
        }
        #expect(acknowledged.count > kills, "the child acknowledged too few saves to prove anything")
    }

    /// Four writers replacing their entities while compaction runs every few dozen saves:
    /// kills land in group commits and in compactions, and no acknowledged revision is lost.
    @Test func noAcknowledgedRevisionIsLostWhenKilledDuringCompaction() async throws {
        let url = directory.file()
        var random = SeededRandomNumberGenerator(seed: 4_242)
        var acknowledged: [Int: Int] = [:]  // id → newest acknowledged revision
        var nextRevision = 0
        for round in 0..<kills {
            let child = try ChildProcess(["replace-loop", url.path, String(nextRevision)])
            try await child.waitForLine("ready")
            try await Task.sleep(for: .milliseconds(Int.random(in: 5...150, using: &random)))
            for line in await child.kill() {
                let fields = line.split(separator: " ").compactMap { Int($0) }
                guard fields.count == 2 else { continue }
                acknowledged[fields[0]] = max(acknowledged[fields[0]] ?? 0, fields[1])
                nextRevision = max(nextRevision, fields[1])
            }
            nextRevision += 1_000

            let store = try await FileRepository<FixtureEntity>(fileURL: url)
            let stored = Dictionary(uniqueKeysWithValues: try await store.fetchAll().map { ($0.id, $0) })
            for (id, revision) in acknowledged {
                let entity = stored[id]
                let storedRevision = entity?.revision ?? -1
                #expect(
                    storedRevision >= revision && entity == FixtureEntity.make(id, revision: storedRevision),
                    "round \(round): \(id) acknowledged at revision \(revision), stored \(String(describing: entity))"
                )
            }
            try await store.close()
        }
        #expect(acknowledged.count == 80, "every writer's entities were acknowledged at least once")
    }

    @Test func aSecondProcessGetsLocked() async throws {
        let url = directory.file()
        let holder = try ChildProcess(["hold", url.path])
        try await holder.waitForLine("opened")

        let error = await #expect(throws: RepositoryError.self) {
            try await FileRepository<FixtureEntity>(fileURL: url)
        }
        #expect(error?.code == .locked)

        let other = try ChildProcess(["hold", url.path])
        #expect(await other.finish().contains("locked"))
        #expect(other.process.terminationStatus == 3)

        #expect(await holder.finish().contains("closed"))
        let store = try await FileRepository<FixtureEntity>(fileURL: url)
        try await store.close()
    }

    @Test func writersInTwoProcessesTakeTurnsAndLoseNothing() async throws {
        let url = directory.file()
        let first = try ChildProcess(["write", url.path, "0", "300"])
        let second = try ChildProcess(["write", url.path, "1000", "300"])
        #expect(await first.finish().contains("done"))
        #expect(await second.finish().contains("done"))
        let store = try await FileRepository<FixtureEntity>(fileURL: url)
        let ids = Set(try await store.fetchAll().map(\.id))
        #expect(ids == Set(0..<300).union(1_000..<1_300))
        try await store.close()
    }
}
