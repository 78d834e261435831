import Foundation
import Repositories
import RepositoriesSQLite
import RepositoriesTestSupport
import Testing

/// A device whose outbox lives in its local SQLite database, killed with SIGKILL at random
/// points of its writes and syncs, over many rounds, while another client changes some of its
/// entities on the remote between rounds (settled by last writer wins, server wins or a field
/// merge, in turn, so keeping the remote's version and sending a merge run under kills too). After each kill, before any sync, the
/// outbox and the local store agree on every pending change (a write is in both or in
/// neither: nothing split), and every acknowledged write is there; after one sync the remote
/// holds exactly what was acknowledged and the pull was incremental (a killed session does
/// not force a full read, since nothing can be split).
@Suite(.serialized) struct SQLiteOutboxCrashTests {
    /// An ID's state: its revision, or `nil` for deleted.
    typealias State = Int?

    @Test func aDeviceKilledAtRandomLosesNothingAndSplitsNothing() async throws {
        let directory = try TemporaryDirectory()
        let device = directory.url.appending(path: "device")
        try FileManager.default.createDirectory(at: device, withIntermediateDirectories: true)
        let remoteURL = directory.file("remote.sqlite")
        var random = SeededRandomNumberGenerator(seed: 27)
        var acknowledged: [Int: State] = [:]
        var next = 0
        var writesCaughtHalfWay = 0
        var pendingFound = 0
        /// IDs another client changed: the policy decides what they end as, so they are held
        /// to the device and the remote agreeing, not to what the device acknowledged.
        var contested = Set<Int>()
        var conflictsKept = 0
        let policies = ["lastWriterWins", "serverWins", "mergeFields"]
        for round in 0..<ChildProcess.killCount {
            if round > 0 {
                // Another client changes a few of the device's entities on the remote.
                let other = try await SQLiteRepository<FixtureEntity>(fileURL: remoteURL)
                // Among the last IDs, which the device edits again first thing.
                let saved = acknowledged.compactMap { $0.value == nil || $0.key < next - 8 ? nil : $0.key }
                    .sorted()
                let picked = (0..<min(4, saved.count)).map { _ in saved.randomElement(using: &random)! }
                try await other.save(
                    contentsOf: picked.map { FixtureEntity.make($0, revision: 5_000 + round) })
                try await other.close()
                contested.formUnion(picked)
            }
            let policy = policies[round % policies.count]
            let child = try ChildProcess([
                "offline-first-sqlite", device.path, remoteURL.path, String(next), String(round + 1), policy,
            ])
            try await child.waitForLine("ready")
            try await Task.sleep(for: .milliseconds(Int.random(in: 5...150, using: &random)))
            let said = OfflineFirstTranscript(await child.kill())
            acknowledged.merge(said.acknowledged) { _, new in new }
            let inFlight = said.inFlight
            next = max(next, said.highestID + 1)
            writesCaughtHalfWay += inFlight.isEmpty ? 0 : 1

            let remote = try await SQLiteRepository<FixtureEntity>(fileURL: remoteURL)
            let local = try await SQLiteRepository<FixtureEntity>(
                fileURL: device.appending(path: "device.sqlite"))
            let outbox = try await Outbox(in: local, lockWait: .seconds(5))

            // Before any sync: every pending change is what the local store shows.
            let pending = try await outbox.changes()
            pendingFound += pending.count
            let rows = Dictionary(uniqueKeysWithValues: try await local.fetchAll().map { ($0.id, $0) })
            expectNothingSplitOrLost(
                pending: pending, rows: rows, acknowledged: acknowledged, inFlight: inFlight,
                contested: contested,
                round: round)

            let notes = remote.offlineFirst(
                local: local, outbox: outbox, conflicts: .lastWriterWins, automaticSync: nil)
            let report = try await notes.sync()
            if round > 0 {
                #expect(report.pullWasIncremental, "round \(round): \(report.fullPullReason ?? "")")
            }
            #expect(try await outbox.changes().isEmpty, "round \(round): the outbox drained")
            // What the kill caught half way is now settled one way or the other: take it as it is.
            let settled = Dictionary(uniqueKeysWithValues: try await local.fetchAll().map { ($0.id, $0) })
            for id in inFlight.keys {
                acknowledged.updateValue(settled[id].map { $0.revision ?? -1 }, forKey: id)
            }
            let stored = Dictionary(uniqueKeysWithValues: try await remote.fetchAll().map { ($0.id, $0) })
            expectRemoteHoldsAcknowledged(
                stored, acknowledged: acknowledged, contested: contested, round: round)
            #expect(settled == stored, "round \(round): the device and the remote differ")
            var kept = notes.conflicts().makeAsyncIterator()
            conflictsKept = await kept.next()?.count ?? 0
            try await outbox.close()
            try await local.close()
            try await remote.close()
        }
        #expect(acknowledged.count > 50, "the device wrote")
        #expect(pendingFound > 0, "kills left changes pending, which the checks above compared")
        #expect(writesCaughtHalfWay > 0, "some kills caught a write half way")
        #expect(conflictsKept > 0, "syncs met the other client's changes and settled them")
    }
}
