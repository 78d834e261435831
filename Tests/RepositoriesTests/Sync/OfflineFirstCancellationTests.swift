import Foundation
import Repositories
import RepositoriesTestSupport
import RepositoriesTesting
import Testing

/// A write cancelled by its caller (a SwiftUI `.task` whose view went away, a timeout, a task
/// group that failed) lands in both the outbox and the local store, or in neither: never
/// shown on the device without being queued for the remote (the next pull would delete it),
/// nor queued without being shown.
@Suite struct OfflineFirstCancellationTests {
    /// 120 batches of 100, each cancelled after a random number of yields, over a real
    /// `FileRepository` and outbox. Before writes were shielded from cancellation, about one
    /// batch in five was shown but not queued, and the next sync deleted it.
    @Test func aCancelledBatchLandsOnBothSidesOrNeither() async throws {
        let remote = Remote()
        let device = try await Device(remote)
        var random = SeededRandomNumberGenerator(seed: 120)
        var outcomes = (returned: 0, cancelledBefore: 0, landedThoughCancelled: 0)
        var landed: [Item] = []
        for round in 0..<120 {
            let batch = (0..<100).map { item(round * 100 + $0) }
            let notes = device.notes
            let task = Task { try await notes.save(contentsOf: batch) }
            for _ in 0..<Int.random(in: 0...64, using: &random) { await Task.yield() }
            task.cancel()
            let result = await task.result

            let ids = batch.map(\.id)
            let shown = try await device.local.fetch(ids: ids).count
            var queued = 0
            for id in ids where try await device.outbox.change(for: id) != nil { queued += 1 }
            #expect(
                (shown == 0 || shown == 100) && queued == shown,
                "round \(round): \(shown) of 100 shown, \(queued) queued, after \(result)")
            switch result {
            case .success:
                #expect(shown == 100, "round \(round): the batch returned but is not all there")
                outcomes.returned += 1
            case .failure(let error):
                #expect(error is CancellationError, "round \(round): \(error)")
                if shown == 0 { outcomes.cancelledBefore += 1 } else { outcomes.landedThoughCancelled += 1 }
            }
            if shown == 100 { landed += batch }
        }
        // Both outcomes happened, so the rounds cancelled before and after writes began.
        #expect(
            outcomes.cancelledBefore > 0 && outcomes.returned + outcomes.landedThoughCancelled > 0,
            "\(outcomes)")

        // What the device shows reaches the remote, and the pull keeps it.
        try await device.notes.sync()
        #expect(try await remote.base.fetchAll().count == landed.count)
        #expect(try await device.notes.fetchAll().count == landed.count)
        try await device.close()
    }

    /// The same for single saves and deletes, cancelled at random, each over an entity the
    /// device already holds: afterwards the local copy and the queued change agree.
    @Test func aCancelledSaveOrDeleteLandsOnBothSidesOrNeither() async throws {
        let remote = Remote()
        let device = try await Device(remote)
        try await device.notes.save(contentsOf: (0..<50).map { item($0) })
        try await device.notes.sync()
        var random = SeededRandomNumberGenerator(seed: 121)
        for round in 0..<200 {
            let id = Int.random(in: 0..<50, using: &random)
            let notes = device.notes
            let deleting = Bool.random(using: &random)
            let task = Task {
                if deleting {
                    try await notes.delete(id: id)
                } else {
                    try await notes.save(item(id, round + 1))
                }
            }
            for _ in 0..<Int.random(in: 0...32, using: &random) { await Task.yield() }
            task.cancel()
            _ = await task.result
            let shown = try await device.local.fetch(id: id)
            let queued = try await device.outbox.change(for: id)
            if let queued {
                let expected: PendingChange<Item>.Kind = shown.map { .save($0) } ?? .delete
                #expect(
                    queued.kind == expected,
                    "round \(round): queued \(queued.kind), shown \(String(describing: shown))")
            } else {
                #expect(
                    shown == (try await remote.base.fetch(id: id)),
                    "round \(round): shown without being queued")
            }
            if round % 20 == 19 { try await device.notes.sync() }
        }
        try await device.close()
    }
}
