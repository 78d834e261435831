import Foundation
import Repositories
import RepositoriesSQLite
import RepositoriesTestSupport
import Testing

/// Two processes on one device's SQLite database and its outbox (an app and its extension),
/// both writing and syncing at once over a shared SQLite remote, killed with SIGKILL at random
/// points, one and then the other, over many rounds; another client changes some of their
/// entities on the remote between rounds. After each round, before any sync, every pending
/// change is what the local store shows (nothing split) and every write either process
/// acknowledged is there; after one sync here the outbox is empty and the remote holds exactly
/// what was acknowledged.
@Suite(.serialized) struct SQLiteSharedOutboxCrashTests {
    /// An ID's state: its revision, or `nil` for deleted.
    typealias State = Int?

    @Test func twoProcessesKilledAtRandomLoseNothingAndSplitNothing() async throws {
        let directory = try TemporaryDirectory()
        let device = directory.url.appending(path: "device")
        try FileManager.default.createDirectory(at: device, withIntermediateDirectories: true)
        let remoteURL = directory.file("remote.sqlite")
        var random = SeededRandomNumberGenerator(seed: 2_711)
        var acknowledged: [Int: State] = [:]
        // The app's IDs start at 0, the extension's at a million: neither edits the other's.
        var next = [0, 1_000_000]
        var contested = Set<Int>()
        var pendingFound = 0
        var syncsInChildren = 0
        let policies = ["lastWriterWins", "serverWins", "mergeFields"]
        for round in 0..<ChildProcess.killCount {
            if round > 0 {
                // Another client changes a few of the last IDs, which the processes edit again.
                let other = try await SQLiteRepository<FixtureEntity>(fileURL: remoteURL)
                let recent = acknowledged.compactMap { entry -> Int? in
                    guard entry.value != nil else { return nil }
                    let start = entry.key >= 1_000_000 ? next[1] : next[0]
                    return entry.key >= start - 8 ? entry.key : nil
                }.sorted()
                let picked = (0..<min(4, recent.count)).map { _ in recent.randomElement(using: &random)! }
                try await other.save(
                    contentsOf: picked.map { FixtureEntity.make($0, revision: 5_000 + round) })
                try await other.close()
                contested.formUnion(picked)
            }
            let policy = policies[round % policies.count]
            var children: [ChildProcess] = []
            for process in 0..<2 {
                children.append(
                    try ChildProcess([
                        "offline-first-sqlite", device.path, remoteURL.path, String(next[process]),
                        String(round * 2 + process + 1), policy,
                    ]))
            }
            for child in children { try await child.waitForLine("ready") }
            // Both write and sync at once; one is killed, the other a moment later.
            let order = Bool.random(using: &random) ? [0, 1] : [1, 0]
            var said = [OfflineFirstTranscript([]), OfflineFirstTranscript([])]
            for process in order {
                try await Task.sleep(for: .milliseconds(Int.random(in: 5...200, using: &random)))
                said[process] = OfflineFirstTranscript(await children[process].kill())
            }
            var inFlight: [Int: State] = [:]
            for process in 0..<2 {
                acknowledged.merge(said[process].acknowledged) { _, new in new }
                for (id, state) in said[process].inFlight { inFlight[id] = state }
                next[process] = max(next[process], said[process].highestID + 1)
                syncsInChildren += said[process].synced
            }

            let remote = try await SQLiteRepository<FixtureEntity>(fileURL: remoteURL)
            let local = try await SQLiteRepository<FixtureEntity>(
                fileURL: device.appending(path: "device.sqlite"))
            let outbox = try await Outbox(in: local)
            let pending = try await outbox.changes()
            pendingFound += pending.count
            let rows = Dictionary(uniqueKeysWithValues: try await local.fetchAll().map { ($0.id, $0) })
            expectNothingSplitOrLost(
                pending: pending, rows: rows, acknowledged: acknowledged, inFlight: inFlight,
                contested: contested,
                round: round)

            let notes = remote.offlineFirst(
                local: local, outbox: outbox, conflicts: .lastWriterWins, automaticSync: nil)
            try await notes.sync()
            #expect(try await outbox.changes().isEmpty, "round \(round): the outbox drained")
            let settled = Dictionary(uniqueKeysWithValues: try await local.fetchAll().map { ($0.id, $0) })
            for id in inFlight.keys {
                acknowledged.updateValue(settled[id].map { $0.revision ?? -1 }, forKey: id)
            }
            let stored = Dictionary(uniqueKeysWithValues: try await remote.fetchAll().map { ($0.id, $0) })
            expectRemoteHoldsAcknowledged(
                stored, acknowledged: acknowledged, contested: contested, round: round)
            #expect(settled == stored, "round \(round): the device and the remote differ")
            try await outbox.close()
            try await local.close()
            try await remote.close()
        }
        #expect(acknowledged.keys.contains { $0 < 1_000_000 }, "the app wrote")
        #expect(acknowledged.keys.contains { $0 >= 1_000_000 }, "the extension wrote")
        #expect(pendingFound > 0, "kills left changes pending, which the checks compared")
        #expect(syncsInChildren > 0, "the processes synced while both ran")
    }
}
