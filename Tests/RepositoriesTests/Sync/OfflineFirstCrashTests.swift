import Foundation
import Repositories
import RepositoriesTestSupport
import RepositoriesTesting
import Testing

/// Real child processes writing through an offline-first stack (outbox, local file, and a
/// file standing for the remote, synced now and then), killed with SIGKILL at random points:
/// during a write, between the outbox and the local store, during a push and a pull.
@Suite(.serialized) struct OfflineFirstCrashTests {
    /// At least 20 kills in CI; `REPOSITORIES_CRASH_KILLS` asks for more.
    var kills: Int {
        ChildProcess.killCount
    }

    @Test func everyAcknowledgedChangeReachesTheRemoteAfterRestartAndOneSync() async throws {
        let directory = try TemporaryDirectory()
        let device = directory.url.appending(path: "device")
        try FileManager.default.createDirectory(at: device, withIntermediateDirectories: true)
        let remoteURL = directory.file("remote.store")
        var random = SeededRandomNumberGenerator(seed: 13)
        var acknowledged = Set<Int>()
        var next = 0
        for round in 0..<kills {
            let child = try ChildProcess(["offline-first", device.path, remoteURL.path, String(next)])
            try await child.waitForLine("ready")
            try await Task.sleep(for: .milliseconds(Int.random(in: 5...150, using: &random)))
            let printed = await child.kill().compactMap(Int.init)
            acknowledged.formUnion(printed)
            next = (printed.max() ?? next) + 100

            // Restart: the device reopens, replays its outbox, and syncs once.
            let remote = try await FileRepository<FixtureEntity>(fileURL: remoteURL)
            let local = try await FileRepository<FixtureEntity>(
                fileURL: device.appending(path: "device.store"))
            let outbox = try await Outbox<FixtureEntity>(fileURL: device.appending(path: "device.outbox"))
            let notes = remote.offlineFirst(
                local: local, outbox: outbox, conflicts: .lastWriterWins, automaticSync: nil)
            let here = Set(try await notes.fetchAll().map(\.id))
            #expect(
                acknowledged.isSubset(of: here),
                "round \(round): the device lost \(acknowledged.subtracting(here).sorted().prefix(10))")
            try await notes.sync()

            let stored = try await remote.fetchAll()
            let wrong = stored.filter { acknowledged.contains($0.id) && $0 != FixtureEntity.make($0.id) }.map(
                \.id)
            let missing = acknowledged.subtracting(stored.map(\.id))
            #expect(
                missing.isEmpty,
                "round \(round): acknowledged changes missing on the remote: \(missing.sorted().prefix(10))")
            #expect(
                wrong.isEmpty, "round \(round): the remote holds an older revision of \(wrong.prefix(10))")
            #expect(try await outbox.changes().isEmpty, "round \(round): the outbox drained")
            #expect(
                try await local.fetchAll().map(\.id) == stored.map(\.id), "round \(round): the device agrees")
            try await local.close()
            try await outbox.close()
            try await remote.close()
        }
    }
}
