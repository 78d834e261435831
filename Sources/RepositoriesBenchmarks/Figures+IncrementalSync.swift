import Foundation
import Repositories
import Synchronization

extension BenchmarkRun {
    /// Figure 12: one offline-first sync of 20 changes (10 made on the device, 10 by another
    /// client) against remotes of different sizes. Through the remote's change feed the sync
    /// costs what changed, so a remote 100 times larger costs about the same; without a feed
    /// it reads the whole collection.
    func incrementalSyncFigures() async throws -> [Figure] {
        let small = 1_000
        let large = quick ? 10_000 : 100_000
        let rounds = quick ? 5 : 15
        let throughFeedSmall = try await SyncScenario(size: small, feed: true, run: self)
        let throughFeedLarge = try await SyncScenario(size: large, feed: true, run: self)
        let withoutFeed = try await SyncScenario(size: large, feed: false, run: self)
        var runs: [[Double]] = [[], [], []]
        var servedLarge = 0
        for round in 0..<rounds {
            runs[0].append(try await throughFeedSmall.syncRound(round).nanoseconds)
            let (elapsed, served) = try await throughFeedLarge.syncRound(round)
            runs[1].append(elapsed)
            servedLarge = max(servedLarge, served)
            runs[2].append(try await withoutFeed.syncRound(round).nanoseconds)
        }
        for scenario in [throughFeedSmall, throughFeedLarge, withoutFeed] { try await scenario.close() }
        let (feedSmall, feedLarge, full) = (
            Measurement(runs: runs[0]), Measurement(runs: runs[1]), Measurement(runs: runs[2])
        )
        let largeText = large.formatted()
        return [
            .cost(
                12, "one sync of 20 changes through the feed, remote of \(largeText)", measured: feedLarge,
                baseline: feedSmall, baselineName: "the same sync, remote of 1,000", target: 3),
            Figure(
                number: 12, name: "entities the remote served for that sync, remote of \(largeText)",
                measured: "\(servedLarge) at most", baseline: "1,000 (the most allowed)",
                ratio: Double(servedLarge) / 1_000, target: 1, goal: .atMost),
            .cost(
                12, "the same sync against a remote without a feed (it reads all \(largeText))",
                measured: full,
                baseline: feedLarge, baselineName: "through the feed", target: nil),
        ]
    }
}

/// A device (a `FileRepository` and an outbox) synced with an in-memory remote of `size`
/// entities, with or without the remote's change feed, already synced once.
private struct SyncScenario {
    let remote: ServedCountingRemote
    let local: FileRepository<BenchmarkEntity>
    let outbox: Outbox<BenchmarkEntity>
    let device: any SyncingRepository<BenchmarkEntity, Int>
    let size: Int

    init(size: Int, feed: Bool, run: BenchmarkRun) async throws {
        self.size = size
        remote = ServedCountingRemote((0..<size).map { BenchmarkEntity.make($0) })
        local = try await FileRepository<BenchmarkEntity>(fileURL: run.file("sync-device-\(size)"))
        outbox = try await Outbox<BenchmarkEntity>(fileURL: run.file("sync-outbox-\(size)"))
        if feed {
            device = remote.offlineFirst(
                local: local, outbox: outbox, conflicts: .lastWriterWins, automaticSync: nil)
        } else {
            device = WithoutFeed(base: remote).offlineFirst(
                local: local, outbox: outbox, conflicts: .lastWriterWins, automaticSync: nil)
        }
        try await device.sync()
    }

    /// Ten changes here and ten elsewhere, then one timed sync: its nanoseconds and the
    /// entities the remote served for it.
    func syncRound(_ round: Int) async throws -> (nanoseconds: Double, served: Int) {
        let here = (0..<10).map { BenchmarkEntity.make((round * 20 + $0) % size, revision: round + 1) }
        let elsewhere = (10..<20).map { BenchmarkEntity.make((round * 20 + $0) % size, revision: round + 1) }
        for entity in here { try await device.save(entity) }
        try await remote.base.save(contentsOf: elsewhere)
        remote.resetServed()
        let elapsed = try await ContinuousClock().measure { try await device.sync() }
        return (elapsed.nanoseconds, remote.served)
    }

    func close() async throws {
        try await local.close()
        try await outbox.close()
    }
}

/// An in-memory remote with a change feed that counts the entities it serves (by whole
/// reads, pages and reads by ID).
private final class ServedCountingRemote: ChangeFeedRepository, Sendable {
    typealias Entity = BenchmarkEntity
    typealias ID = Int

    let base: InMemoryRepository<BenchmarkEntity>
    private let servedCount = Mutex(0)

    init(_ entities: [BenchmarkEntity]) { base = InMemoryRepository(entities) }

    var served: Int { servedCount.withLock { $0 } }
    func resetServed() { servedCount.withLock { $0 = 0 } }
    private func serve<T>(_ count: Int, _ value: T) -> T {
        servedCount.withLock { $0 += count }
        return value
    }

    func changes(since cursor: SyncCursor?, limit: Int) async throws -> ChangePage<Entity, ID> {
        let page = try await base.changes(since: cursor, limit: limit)
        return serve(page.saved.count, page)
    }
    func fetchAll() async throws -> [Entity] {
        let all = try await base.fetchAll()
        return serve(all.count, all)
    }
    func fetch(id: ID) async throws -> Entity? {
        let entity = try await base.fetch(id: id)
        return serve(entity == nil ? 0 : 1, entity)
    }
    func fetch(ids: [ID]) async throws -> [Entity] {
        let entities = try await base.fetch(ids: ids)
        return serve(entities.count, entities)
    }
    func save(_ entity: Entity) async throws { try await base.save(entity) }
    func save(contentsOf entities: [Entity]) async throws { try await base.save(contentsOf: entities) }
    func delete(id: ID) async throws { try await base.delete(id: id) }
    func delete(ids: [ID]) async throws { try await base.delete(ids: ids) }
    func deleteAll() async throws { try await base.deleteAll() }
}

/// The same remote seen without its feed, as a sync sees an API that has none.
private struct WithoutFeed: Repository {
    typealias Entity = BenchmarkEntity
    typealias ID = Int

    let base: ServedCountingRemote

    func fetch(id: ID) async throws -> Entity? { try await base.fetch(id: id) }
    func fetchAll() async throws -> [Entity] { try await base.fetchAll() }
    func fetch(ids: [ID]) async throws -> [Entity] { try await base.fetch(ids: ids) }
    func save(_ entity: Entity) async throws { try await base.save(entity) }
    func save(contentsOf entities: [Entity]) async throws { try await base.save(contentsOf: entities) }
    func delete(id: ID) async throws { try await base.delete(id: id) }
    func delete(ids: [ID]) async throws { try await base.delete(ids: ids) }
    func deleteAll() async throws { try await base.deleteAll() }
}
