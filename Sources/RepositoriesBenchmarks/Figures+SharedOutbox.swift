import Dispatch
import Foundation
import Repositories
import RepositoriesSQLite

extension BenchmarkRun {
    /// Figure 19: how soon an offline-first write another process makes into a shared SQLite
    /// outbox (`Outbox(in:)`, an app's extension) reaches this process's badge
    /// (`pendingChanges()`), which reads the outbox again when another connection commits
    /// (SQLite's `data_version`, checked every 50 ms): the median and the 99th percentile of
    /// the delay from just before the other process's write to the badge's list holding it.
    func sharedOutboxFigures(count: Int) async throws -> [Figure] {
        let url = file("shared-outbox.sqlite")
        let local = try await SQLiteRepository<CrossProcessStamp>(fileURL: url)
        let outbox = try await Outbox(in: local)
        let delays: [UInt64]
        do {
            delays = try await badgeDelays(of: count, savedInto: url, seenThrough: outbox)
        } catch {
            try await outbox.close()
            try await local.close()
            throw error
        }
        try await outbox.close()
        try await local.close()
        let sorted = delays.sorted()
        let median = Double(sorted[sorted.count / 2])
        let p99 = Double(sorted[min(sorted.count - 1, sorted.count * 99 / 100)])
        let target = 100_000_000.0
        return [
            Figure(
                number: 19, name: "another process's offline-first write seen by the badge here, median",
                measured: Format.time(median), baseline: "100 ms", ratio: median / target, target: 1.0,
                goal: .atMost, note: "\(count) writes, 5 ms apart; data_version checked every 50 ms"),
            Figure(
                number: 19,
                name: "another process's offline-first write seen by the badge here, 99th percentile",
                measured: Format.time(p99), baseline: "100 ms", ratio: p99 / target, target: 1.0,
                goal: .atMost),
        ]
    }

    /// The delays, one per write, from just before another process wrote into the outbox in
    /// `url` to a list of `outbox.pendingChanges()` holding the write.
    private func badgeDelays(
        of count: Int, savedInto url: URL, seenThrough outbox: Outbox<CrossProcessStamp>
    ) async throws -> [UInt64] {
        let lists = outbox.pendingChanges().map { changes in
            changes.compactMap { change -> CrossProcessStamp? in
                guard case .save(let stamp) = change.kind else { return nil }
                return stamp
            }
        }
        let writer = try WritingProcess(Self.sharedOutboxWriterFlag, url: url, count: count)
        let found: [UInt64]?
        do {
            found = try await Self.firstWithin(.seconds(120)) {
                try await Self.delays(in: lists, until: count)
            }
        } catch {
            _ = await writer.exitStatus()
            throw error
        }
        let status = await writer.exitStatus()
        guard status == 0, let delays = found, delays.count >= count else {
            throw BenchmarkFailure(
                description:
                    "the writing process ended with status \(status), and the badge showed \(found?.count ?? 0) of its \(count) writes within two minutes"
            )
        }
        return delays
    }

    /// The flag that makes this executable the writing process of figure 19.
    static let sharedOutboxWriterFlag = "--shared-outbox-writer"

    /// The writing process of figure 19: writes `count` stamps through an offline-first
    /// repository whose outbox is in the database at `url` (never synced), one every 5 ms,
    /// each stamped just before its write.
    static func writeStampsThroughSharedOutbox(url: URL, count: Int) async throws {
        let local = try await SQLiteRepository<CrossProcessStamp>(fileURL: url)
        let outbox = try await Outbox(in: local)
        let stamps = InMemoryRepository<CrossProcessStamp>().offlineFirst(
            local: local, outbox: outbox, automaticSync: nil)
        for id in 0..<count {
            try await stamps.save(CrossProcessStamp(id: id, madeAt: DispatchTime.now().uptimeNanoseconds))
            try await Task.sleep(for: .milliseconds(5))
        }
        try await outbox.close()
        try await local.close()
    }
}
