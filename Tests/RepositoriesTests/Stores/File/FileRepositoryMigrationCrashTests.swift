import Foundation
import Repositories
import RepositoriesTestSupport
import Testing

/// A real child process migrating a store, killed with SIGKILL while it does.
@Suite(.serialized) struct FileRepositoryMigrationCrashTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// At least 20 kills in CI; `REPOSITORIES_CRASH_KILLS` asks for more.
    var kills: Int {
        ChildProcess.killCount
    }

    /// Entities in the version 1 store: enough that rewriting it takes a while to kill into.
    static let count = 10_000

    /// Writes the version 1 store in batches, so the old file holds many records.
    func writeVersionOneStore(at url: URL) async throws {
        let store = try await FileRepository<FixtureEntity>(fileURL: url)
        for start in stride(from: 0, to: Self.count, by: 500) {
            try await store.save(contentsOf: (start..<(start + 500)).map(FixtureEntity.make))
        }
        try await store.close()
    }

    /// The store's inode, to see the rename land.
    static func inode(of url: URL) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: url.path))?[.systemFileNumber] as? Int
    }

    /// Waits until the child starts rewriting the store (the temporary file appears, or a new
    /// file takes the store's place), or ends. Only a trigger for the kill: nothing is asserted
    /// on how long anything took.
    func waitForTheRewrite(of url: URL, originalInode: Int?, child: ChildProcess) async throws {
        while child.process.isRunning {
            if FileManager.default.fileExists(atPath: url.path + ".compacting")
                || Self.inode(of: url) != originalInode
            {
                return
            }
            try await Task.sleep(for: .microseconds(500))
        }
    }

    /// Even rounds kill at a random moment of the whole open (reading, decoding, upgrading,
    /// rewriting); odd rounds wait for the rewrite to begin and kill within its first 5 ms,
    /// where a non-atomic rewrite would leave a mix.
    @Test func aKilledMigrationLeavesTheOldFileOrTheNewNeverAMix() async throws {
        let url = directory.file("todos.store")
        try await writeVersionOneStore(at: url)
        let original = try Data(contentsOf: url)

        // How long a whole migration takes in a child, so the kills spread over it.
        let clock = ContinuousClock()
        let timed = try ChildProcess(["migrate", url.path])
        try await timed.waitForLine("opening")
        let start = clock.now
        try await timed.waitForLine("migrated")
        let window = max(clock.now - start, .milliseconds(20))
        _ = await timed.finish()

        var random = SeededRandomNumberGenerator(seed: 1_414)
        var outcomes = (old: 0, new: 0, duringRewrite: 0)
        for round in 0..<kills {
            try original.write(to: url)
            let originalInode = Self.inode(of: url)
            let child = try ChildProcess(["migrate", url.path])
            try await child.waitForLine("opening")
            if round % 2 == 0 {
                try await Task.sleep(for: window * Double.random(in: 0...1.2, using: &random))
            } else {
                try await waitForTheRewrite(of: url, originalInode: originalInode, child: child)
                try await Task.sleep(for: .microseconds(Int.random(in: 0...5_000, using: &random)))
            }
            _ = await child.kill()
            if FileManager.default.fileExists(atPath: url.path + ".compacting") {
                outcomes.duringRewrite += 1
            }

            // Either the file is the old one, byte for byte, or the new one holds nothing older.
            let afterKill = try Data(contentsOf: url)
            let store = try await FileRepository<FixtureEntityV2>(
                fileURL: url, migrations: FixtureEntityV2.migrations())
            if afterKill == original {
                outcomes.old += 1
                #expect(store.upgradedRecordCount == Self.count, "round \(round): the old file, whole")
            } else {
                outcomes.new += 1
                #expect(afterKill[8] == 3, "round \(round): the new file is format 3")
                #expect(store.upgradedRecordCount == 0, "round \(round): a changed file must be the new one")
            }
            // Every entity exactly once, upgraded; and this open completed the upgrade.
            let entities = try await store.fetchAll()
            let ids = entities.map(\.id)
            #expect(
                ids == Array(0..<Self.count),
                "round \(round): every entity once, in order; \(Self.count - Set(ids).count) missing, \(ids.count - Set(ids).count) twice"
            )
            let wrong = entities.filter { $0 != FixtureEntityV2.make($0.id) }.map(\.id)
            #expect(
                wrong.isEmpty, "round \(round): not upgraded as version 2 reads them: \(wrong.prefix(10))")
            try await store.close()
            let again = try await FileRepository<FixtureEntityV2>(
                fileURL: url, migrations: FixtureEntityV2.migrations())
            #expect(again.upgradedRecordCount == 0, "round \(round): the upgrade was made durable")
            try await again.close()
            #expect(!FileManager.default.fileExists(atPath: url.path + ".compacting"))
        }
        #expect(outcomes.old + outcomes.new == kills)
        print(
            "migration kills: \(outcomes.old) left the old file, \(outcomes.new) the new one, \(outcomes.duringRewrite) during the rewrite"
        )
    }
}
