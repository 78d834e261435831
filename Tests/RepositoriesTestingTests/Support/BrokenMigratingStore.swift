import Foundation
import Repositories
import RepositoriesTesting
import Synchronization

/// The bytes one location holds: the version that wrote them, whether they carry a stamp,
/// and each entity's JSON, in order. What a store on a disk would keep.
final class MemoryDisk: Sendable {
    struct Contents: Sendable {
        var version = 1
        var stamped = false
        var records: [Data] = []
    }

    let contents = Mutex(Contents())
}

/// A location whose store keeps entities on a ``MemoryDisk``, with one deliberate defect in
/// how it migrates (or none), so each test can show the migration area catches that defect
/// with the law that names it.
struct BrokenMigrationLocation: MigrationStoreLocation {
    enum Defect: Sendable, CaseIterable {
        /// Upgrading drops the last entity.
        case dropsAnEntityWhenUpgrading
        /// Upgrades every record from version 1, whatever version wrote it (as a store that
        /// keeps no stamp would).
        case upgradesFromVersionOneAlways
        /// Never writes an upgrade back: every open upgrades again.
        case upgradesOnEveryOpen
        /// Once it has upgraded, writes are kept in memory and never reach the disk.
        case losesWritesAfterUpgrade
        /// Reads data of a newer version as no data at all, and writes over it.
        case readsNewerDataAsEmpty
        /// Refuses to read newer data but lets `deleteAll()` erase it.
        case deletesNewerData
        /// Stamps version 1 too, which a store without migrations cannot read.
        case stampsVersionOne
    }

    let defect: Defect?
    let disk = MemoryDisk()

    func open<Entity: VersionedConformanceEntity>(migrations: Migrations<Entity>) async throws
        -> OpenedStore<Entity>
    {
        let store = try await MigratingMemoryStore(disk: disk, migrations: migrations, defect: defect)
        return OpenedStore(store) {}
    }

    func openWithoutMigrations<Entity: VersionedConformanceEntity>() async throws -> OpenedStore<Entity> {
        let store = try await MigratingMemoryStore<Entity>(
            disk: disk, migrations: Migrations(), defect: defect, withoutMigrations: true)
        return OpenedStore(store) {}
    }
}

/// The store of a ``BrokenMigrationLocation``: entities in memory, every write of the whole
/// collection to the disk at the current version.
final class MigratingMemoryStore<Entity: VersionedConformanceEntity>: Repository {
    typealias ID = Int

    private let base: InMemoryRepository<Entity>
    private let disk: MemoryDisk
    private let version: Int
    private let stamps: Bool
    /// Whether this store refuses reads because a newer version wrote the disk.
    private let newer: Bool
    private let persists: Bool

    init(
        disk: MemoryDisk, migrations: Migrations<Entity>, defect: BrokenMigrationLocation.Defect?,
        withoutMigrations: Bool = false
    ) async throws {
        self.disk = disk
        version = migrations.currentVersion
        stamps = !withoutMigrations && (version > 1 || defect == .stampsVersionOne)
        let contents = disk.contents.withLock { $0 }
        if withoutMigrations, contents.stamped {
            throw RepositoryError.decodingFailed(
                record: "the disk", location: "memory",
                underlying: RepositoryError.rejected("stamped data; this store reads only the unstamped form")
            )
        }
        var entities: [Entity] = []
        var isNewer = false
        if contents.version > version {
            if defect == .readsNewerDataAsEmpty {
                isNewer = false
            } else if defect == .deletesNewerData {
                isNewer = true
            } else {
                throw RepositoryError.writtenByNewerVersion(
                    contents.version, knownVersion: version, location: "memory")
            }
        } else {
            let writtenBy = defect == .upgradesFromVersionOneAlways ? 1 : contents.version
            entities = try contents.records.map {
                try migrations.decode($0, writtenBy: writtenBy, using: JSONDecoder())
            }
        }
        let upgraded = contents.version < version && !contents.records.isEmpty
        if upgraded, defect == .dropsAnEntityWhenUpgrading { entities.removeLast() }
        newer = isNewer
        persists = !(upgraded && defect == .losesWritesAfterUpgrade)
        base = InMemoryRepository(entities)
        if upgraded, defect != .upgradesOnEveryOpen { try await persist() }
    }

    private func persist() async throws {
        guard persists else { return }
        let records = try await base.fetchAll().map { try JSONEncoder().encode($0) }
        disk.contents.withLock {
            $0 = MemoryDisk.Contents(version: version, stamped: stamps, records: records)
        }
    }

    private func checkReadable() throws {
        if newer { throw RepositoryError.writtenByNewerVersion(3, knownVersion: version, location: "memory") }
    }

    func fetch(id: Int) async throws -> Entity? {
        try checkReadable()
        return try await base.fetch(id: id)
    }

    func fetchAll() async throws -> [Entity] {
        try checkReadable()
        return try await base.fetchAll()
    }

    func save(_ entity: Entity) async throws {
        try checkReadable()
        try await base.save(entity)
        try await persist()
    }

    func save(contentsOf entities: [Entity]) async throws {
        try checkReadable()
        try await base.save(contentsOf: entities)
        try await persist()
    }

    func delete(id: Int) async throws {
        try checkReadable()
        try await base.delete(id: id)
        try await persist()
    }

    func deleteAll() async throws {
        try await base.deleteAll()
        try await persist()
    }
}
