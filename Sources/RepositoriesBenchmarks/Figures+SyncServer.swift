import Foundation
import Repositories
import RepositoriesHTTP
import RepositoriesPostgres
import RepositoriesSQLite
import RepositoriesTestSupport

extension BenchmarkRun {
    /// Figure 14: a device syncing with the Swift server half. The device is a
    /// `SQLiteRepository` and its outbox over an `HTTPRepository` with the feed convention,
    /// reaching `SyncEndpoint` over `PostgresRepository` (on a private server this run starts,
    /// `fsync` on) through `SyncEndpointTransport`: every request goes through the client's and
    /// the endpoint's HTTP handling and JSON, without sockets.
    ///
    /// - The first sync of a new device against 100,000 entities, in entities per second,
    ///   held against PowerSync's upper figure for a client (20,000 operations/s).
    /// - A sync with nothing to do, in requests, at 1,000 and at 100,000 entities: one.
    /// - A sync of 1,000 creates made offline, in requests: one write each and one page of the
    ///   feed (no read before a create).
    ///
    /// Without PostgreSQL binaries the section is skipped, saying why.
    func syncServerFigures() async throws -> [Figure] {
        let server: PostgresTestServer
        do {
            server = try await PostgresTestServer.start(durable: true)
        } catch {
            FileHandle.standardError.write(Data("skipping the sync server figures: \(error)\n".utf8))
            return []
        }
        defer { server.stop() }
        let large = quick ? 10_000 : 100_000
        let small = try await SyncServerScenario(size: 1_000, server: server, run: self)
        let big = try await SyncServerScenario(size: large, server: server, run: self)

        var firstSyncs: [Double] = []
        var idleRequests = (small: 0, large: 0)
        for _ in 0..<(quick ? 2 : 3) {
            let device = try await big.newDevice()
            let elapsed = try await ContinuousClock().measure {
                let report = try await device.repository.sync()
                guard report.received == large else {
                    throw BenchmarkFailure(
                        description: "the first sync received \(report.received) of \(large) entities")
                }
            }
            firstSyncs.append(elapsed.nanoseconds / Double(large))
            idleRequests.large = max(idleRequests.large, try await device.repository.sync().requests)
            try await device.close()
        }
        let smallDevice = try await small.newDevice()
        _ = try await smallDevice.repository.sync()
        idleRequests.small = try await smallDevice.repository.sync().requests
        // 1,000 creates made offline, then one sync: a write each, and the feed's page.
        let creates = 1_000
        try await smallDevice.repository.save(
            contentsOf: (0..<creates).map { BenchmarkEntity.make(1_000_000 + $0) })
        let pushed = try await smallDevice.repository.sync()
        guard pushed.confirmed == creates else {
            throw BenchmarkFailure(
                description: "the sync confirmed \(pushed.confirmed) of \(creates) creates")
        }
        try await smallDevice.close()
        try await small.close()
        try await big.close()

        let firstSync = Measurement(runs: firstSyncs)
        let powerSync = 20_000.0
        let largeText = large.formatted()
        return [
            Figure(
                number: 14,
                name:
                    "first sync of a new device (SQLite) through SyncEndpoint over PostgreSQL, \(largeText) entities",
                measured: Format.rate(firstSync.operationsPerSecond),
                baseline: "PowerSync's upper figure: \(Format.rate(powerSync))",
                ratio: firstSync.operationsPerSecond / powerSync, target: 1, goal: .atLeast),
            Figure(
                number: 14, name: "requests of a sync with nothing to do, \(largeText) entities",
                measured: "\(idleRequests.large)", baseline: "1,000 entities: \(idleRequests.small)",
                ratio: Double(idleRequests.large), target: 1, goal: .atMost),
            Figure(
                number: 14, name: "requests of a sync of 1,000 creates made offline",
                measured: "\(pushed.requests)", baseline: "1,002 (the most allowed)",
                ratio: Double(pushed.requests) / 1_002, target: 1, goal: .atMost),
        ]
    }
}

/// A `SyncEndpoint` over a new PostgreSQL table of `size` entities, and new devices synced
/// with it.
private struct SyncServerScenario {
    let store: PostgresRepository<BenchmarkEntity>
    let endpoint: SyncEndpoint<PostgresRepository<BenchmarkEntity>>
    let run: BenchmarkRun

    init(size: Int, server: PostgresTestServer, run: BenchmarkRun) async throws {
        store = try await PostgresRepository<BenchmarkEntity>(
            connectionString: server.connectionString,
            options: PostgresOptions(tableName: "sync_\(size)", poolSize: 2))
        for start in stride(from: 0, to: size, by: 10_000) {
            try await store.save(
                contentsOf: (start..<min(size, start + 10_000)).map { BenchmarkEntity.make($0) })
        }
        endpoint = SyncEndpoint(store: store)
        self.run = run
    }

    /// A device that has never synced: a new SQLite database and outbox.
    func newDevice() async throws -> SyncServerDevice {
        let local = try await SQLiteRepository<BenchmarkEntity>(fileURL: run.file("device.sqlite"))
        let outbox = try await Outbox<BenchmarkEntity>(fileURL: run.file("device.outbox"))
        let remote = HTTPRepository<BenchmarkEntity>(
            baseURL: URL(string: "https://sync.example/items")!,
            configuration: .init(changeFeed: .changesEndpoint()),
            transport: SyncEndpointTransport(endpoint, at: "/items"))
        return SyncServerDevice(
            local: local, outbox: outbox,
            repository: remote.offlineFirst(
                local: local, outbox: outbox, conflicts: .lastWriterWins, automaticSync: nil))
    }

    func close() async throws {
        await store.close()
    }
}

/// One device's stores and its offline-first repository.
private struct SyncServerDevice {
    let local: SQLiteRepository<BenchmarkEntity>
    let outbox: Outbox<BenchmarkEntity>
    let repository: OfflineFirstRepository<HTTPRepository<BenchmarkEntity>, SQLiteRepository<BenchmarkEntity>>

    func close() async throws {
        try await outbox.close()
        try await local.close()
    }
}
