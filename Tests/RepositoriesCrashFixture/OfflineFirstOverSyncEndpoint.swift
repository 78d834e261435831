import Foundation
import Repositories
import RepositoriesHTTP
import RepositoriesPostgres
import RepositoriesSQLite
import RepositoriesTestSupport

/// A device as an app over the Swift server half has it: a `SQLiteRepository` and its outbox,
/// offline-first over an `HTTPRepository` with the change feed, reaching a `SyncEndpoint` over
/// `PostgresRepository` (`table` at `connection`) through its in-process transport. The
/// endpoint lives in this process: a kill of the device restarts it too.
struct SyncEndpointDevice {
    let store: PostgresRepository<FixtureEntity>
    let local: SQLiteRepository<FixtureEntity>
    let outbox: Outbox<FixtureEntity>
    let notes: OfflineFirstRepository<HTTPRepository<FixtureEntity>, SQLiteRepository<FixtureEntity>>

    init(_ device: URL, connection: String, table: String) async throws {
        store = try await PostgresRepository<FixtureEntity>(
            connectionString: connection, options: PostgresOptions(tableName: table, poolSize: 2))
        let remote = HTTPRepository<FixtureEntity>(
            baseURL: URL(string: "https://sync.example/items")!,
            configuration: .init(changeFeed: .changesEndpoint()),
            transport: SyncEndpointTransport(SyncEndpoint(store: store), at: "/items"))
        local = try await SQLiteRepository<FixtureEntity>(fileURL: device.appending(path: "device.sqlite"))
        outbox = try await Outbox<FixtureEntity>(fileURL: device.appending(path: "device.outbox"))
        notes = remote.offlineFirst(
            local: local, outbox: outbox, conflicts: .lastWriterWins, automaticSync: nil)
    }

    func close() async throws {
        try await outbox.close()
        try await local.close()
        await store.close()
    }
}

/// `offline-first-endpoint`: writes and syncs forever through a ``SyncEndpointDevice``
/// (``writeAndSyncForever(_:first:)``), killing itself with SIGKILL the `occurrence`-th time
/// it reaches `step`.
func offlineFirstOverSyncEndpoint(
    device: URL, connection: String, table: String, step: _OfflineFirstStep, occurrence: Int, first: Int
) async throws {
    killItself(at: step, occurrence: occurrence)
    let device = try await SyncEndpointDevice(device, connection: connection, table: table)
    say("ready")
    try await writeAndSyncForever(device.notes, first: first)
}

/// `offline-first-endpoint-sync`: the device after a restart: opens, syncs once, closes,
/// prints "synced" and what the sync did.
func syncOnceOverSyncEndpoint(device: URL, connection: String, table: String) async throws {
    let device = try await SyncEndpointDevice(device, connection: connection, table: table)
    let report = try await device.notes.sync()
    try await device.close()
    say("synced: \(report)")
}
