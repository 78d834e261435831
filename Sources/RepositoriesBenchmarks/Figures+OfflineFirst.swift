import Foundation
import Repositories
import Synchronization

extension BenchmarkRun {
    /// Figure 9: a write through `offlineFirst` against a plain `FileRepository` save at the
    /// same durability (the outbox adds one durable append), beside the floor of that design
    /// (two durable appends to two files at once), and draining pending changes through a
    /// remote's batch calls.
    func offlineFirstFigures() async throws -> [Figure] {
        let count = durableOperations
        let (offline, plain, twoFiles) = try await Measurement.interleaved(repetitions: repetitions) {
            let local = try await FileRepository<BenchmarkEntity>(fileURL: file("device"))
            let outbox = try await Outbox<BenchmarkEntity>(fileURL: file("outbox"))
            let items = InMemoryRepository<BenchmarkEntity>()
                .offlineFirst(local: local, outbox: outbox, conflicts: .lastWriterWins, automaticSync: nil)
            for id in 0..<count { try await items.save(.make(id)) }
            try await local.close()
            try await outbox.close()
            return count
        } _: {
            let store = try await FileRepository<BenchmarkEntity>(fileURL: file("plain"))
            for id in 0..<count { try await store.save(.make(id)) }
            try await store.close()
            return count
        } _: {
            // The floor of any design that keeps the local store durable too: two durable
            // appends to two files at once, with no outbox logic around them.
            let first = try await FileRepository<BenchmarkEntity>(fileURL: file("first"))
            let second = try await FileRepository<BenchmarkEntity>(fileURL: file("second"))
            for id in 0..<count {
                async let one: Void = first.save(.make(id))
                async let other: Void = second.save(.make(id))
                _ = try await (one, other)
            }
            try await first.close()
            try await second.close()
            return count
        }

        let pending = quick ? 1_000 : 10_000
        let remote = CountingRemote()
        let local = try await FileRepository<BenchmarkEntity>(fileURL: file("drain-device"))
        let outbox = try await Outbox<BenchmarkEntity>(fileURL: file("drain-outbox"))
        let items = remote.offlineFirst(
            local: local, outbox: outbox, conflicts: .lastWriterWins, automaticSync: nil)
        try await items.save(contentsOf: (0..<pending).map { .make($0) })
        let start = ContinuousClock.now
        try await items.sync()
        let elapsed = ContinuousClock.now - start
        let perChange =
            Double(elapsed.components.seconds) * 1e9 / Double(pending)
            + Double(elapsed.components.attoseconds) / 1e9 / Double(pending)
        try await local.close()
        try await outbox.close()
        let writes = remote.writeCalls
        return [
            .cost(
                9, "offlineFirst durable write (outbox + local file), 1 writer", measured: offline,
                baseline: plain,
                baselineName: "FileRepository durable save", target: 1.5),
            .cost(
                9,
                "two FileRepository durable saves to two files at once (the floor of a durable local store)",
                measured: twoFiles, baseline: plain, baselineName: "FileRepository durable save", target: nil),
            Figure(
                number: 9, name: "sync of \(pending) pending changes through a batch endpoint",
                measured:
                    "\(writes) write request\(writes == 1 ? "" : "s"), \(Format.time(perChange)) a change",
                baseline: "\(pending) requests, one per change", ratio: Double(writes) / Double(pending),
                target: 0.01, goal: .atMost),
        ]
    }
}

/// An in-memory remote that counts the write calls that reach it.
private final class CountingRemote: Repository, Sendable {
    typealias Entity = BenchmarkEntity
    typealias ID = BenchmarkEntity.ID

    private let base = InMemoryRepository<BenchmarkEntity>()
    private let writes = Mutex(0)

    var writeCalls: Int { writes.withLock { $0 } }
    private func counted() { writes.withLock { $0 += 1 } }

    func fetch(id: ID) async throws -> Entity? { try await base.fetch(id: id) }
    func fetchAll() async throws -> [Entity] { try await base.fetchAll() }
    func fetch(ids: [ID]) async throws -> [Entity] { try await base.fetch(ids: ids) }
    func save(_ entity: Entity) async throws {
        counted()
        try await base.save(entity)
    }
    func save(contentsOf entities: [Entity]) async throws {
        counted()
        try await base.save(contentsOf: entities)
    }
    func delete(id: ID) async throws {
        counted()
        try await base.delete(id: id)
    }
    func delete(ids: [ID]) async throws {
        counted()
        try await base.delete(ids: ids)
    }
    func deleteAll() async throws {
        counted()
        try await base.deleteAll()
    }
}
