import Foundation
import Repositories
import Synchronization

extension BenchmarkRun {
    /// Figure 13: durable saves through `offlineFirst` while a screen watches them (a badge
    /// on `pendingChanges()` and a list on `values(_:)`), against the same saves with no one
    /// watching. An observer should cost what changed, not a re-read of everything per write.
    func observerFigures() async throws -> [Figure] {
        let count = quick ? 200 : 1_000
        let (watched, unwatched) = try await Measurement.interleaved(repetitions: repetitions) {
            try await saves(count, watched: true)
        } _: {
            try await saves(count, watched: false)
        }
        return [
            .cost(
                13, "\(count) offlineFirst saves with a badge and a list open", measured: watched,
                baseline: unwatched, baselineName: "the same saves, no one watching", target: 1.3)
        ]
    }

    /// `count` durable saves through a new offline-first device; with `watched`, a badge and
    /// a list consume every update meanwhile, and the run ends once both saw the last save.
    private func saves(_ count: Int, watched: Bool) async throws -> Int {
        let local = try await FileRepository<BenchmarkEntity>(fileURL: file("observed-device"))
        let outbox = try await Outbox<BenchmarkEntity>(fileURL: file("observed-outbox"))
        let items = InMemoryRepository<BenchmarkEntity>()
            .offlineFirst(local: local, outbox: outbox, conflicts: .lastWriterWins, automaticSync: nil)
        var watchers: [Task<Void, any Error>] = []
        if watched {
            let badge = outbox.pendingChanges()
            let list = items.values(Query<BenchmarkEntity>().sorted(by: \.name).limit(50))
            watchers.append(
                Task {
                    for await pending in badge where pending.count == count { return }
                })
            watchers.append(
                Task {
                    for try await snapshot in list where snapshot.pendingIDs.count == count { return }
                })
        }
        for id in 0..<count { try await items.save(.make(id)) }
        for watcher in watchers { try await watcher.value }
        try await local.close()
        try await outbox.close()
        return count
    }
}
