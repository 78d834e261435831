import Foundation
import Repositories
import RepositoriesSQLite
import RepositoriesTestSupport
import Testing

/// A device pulling through a SQLite remote's change feed, killed with SIGKILL at random
/// moments (mostly while it applies pages and keeps their cursor): after a restart and one
/// sync, the device holds exactly what the remote holds (nothing lost, nothing stale,
/// nothing brought back), and every save it acknowledged is on the remote.
@Suite(.serialized) struct OfflineFirstFeedCrashTests {
    @Test func aDeviceKilledWhilePullingEndsWhereTheRemoteIs() async throws {
        let directory = try TemporaryDirectory()
        let device = directory.url.appending(path: "device")
        try FileManager.default.createDirectory(at: device, withIntermediateDirectories: true)
        let remoteURL = directory.file("remote.sqlite")
        var random = SeededRandomNumberGenerator(seed: 24)
        var acknowledged = Set<Int>()
        var next = 1_000_000
        var killedMidSync = 0
        for round in 0..<ChildProcess.killCount {
            // Another client changes the remote: new entities, new revisions, deletions.
            let writer = try await SQLiteRepository<FixtureEntity>(fileURL: remoteURL)
            let ids = (0..<700).map { _ in Int.random(in: 0..<3_000, using: &random) }
            try await writer.save(
                contentsOf: ids.prefix(500).map { FixtureEntity.make($0, revision: round) })
            try await writer.delete(ids: Array(ids.suffix(200)))
            try await writer.close()

            let child = try ChildProcess(["offline-first-feed", device.path, remoteURL.path, String(next)])
            try await child.waitForLine("ready")
            try await Task.sleep(for: .milliseconds(Int.random(in: 2...120, using: &random)))
            let lines = await child.kill()
            // The last line an ID: the kill came during the sync that followed its save.
            if let last = lines.last, Int(last) != nil { killedMidSync += 1 }
            let printed = lines.compactMap(Int.init)
            acknowledged.formUnion(printed)
            next = (printed.max() ?? next) + 1

            // Restart: the device opens its files again and syncs once.
            let remote = try await SQLiteRepository<FixtureEntity>(fileURL: remoteURL)
            let local = try await FileRepository<FixtureEntity>(
                fileURL: device.appending(path: "device.store"))
            let outbox = try await Outbox<FixtureEntity>(fileURL: device.appending(path: "device.outbox"))
            let notes = remote.offlineFirst(
                local: local, outbox: outbox, conflicts: .lastWriterWins, automaticSync: nil)
            try await notes.sync()

            let stored = try await remote.fetchAll().sorted { $0.id < $1.id }
            let here = try await local.fetchAll().sorted { $0.id < $1.id }
            let missing = acknowledged.subtracting(stored.map(\.id))
            #expect(
                missing.isEmpty,
                "round \(round): acknowledged saves missing on the remote: \(missing.sorted().prefix(10))")
            let differing = Self.differingIDs(here, stored)
            #expect(
                differing.isEmpty,
                "round \(round): the device differs from the remote on \(differing.count) IDs: \(differing.prefix(10))"
            )
            #expect(try await outbox.changes().isEmpty, "round \(round): the outbox drained")
            try await local.close()
            try await outbox.close()
            try await remote.close()
        }
        // Most kills must land during a sync (most of which is the pull), or this proves little.
        #expect(killedMidSync * 2 > ChildProcess.killCount, "\(killedMidSync) kills landed during a sync")
    }

    /// The IDs whose entity differs between two sorted lists (missing on one side included).
    static func differingIDs(_ one: [FixtureEntity], _ other: [FixtureEntity]) -> [Int] {
        let left = Dictionary(one.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let right = Dictionary(other.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        return Set(left.keys).union(right.keys).filter { left[$0] != right[$0] }.sorted()
    }
}
