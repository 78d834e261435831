import Foundation
import Repositories
import RepositoriesTestSupport

/// One device of a sync test: a local store and an outbox in files of its own, over `remote`,
/// syncing only when told; it can be closed and opened again in the same directory, as an
/// app is after a restart.
struct FileDevice<Remote: Repository>: Sendable
where Remote.Entity: Codable & Equatable, Remote.ID: Codable {
    typealias Entity = Remote.Entity

    let directory: TemporaryDirectory
    let local: FileRepository<Entity>
    let outbox: Outbox<Entity>
    let repository: OfflineFirstRepository<Remote, FileRepository<Entity>>

    /// Opens the device in `directory` (a new one when `nil`), syncing `subset` of the remote
    /// when one is given.
    init(
        _ remote: Remote, conflicts: ConflictPolicy<Entity> = .mergeFields(tie: .remote),
        migrations: Migrations<Entity> = Migrations(), subset: Query<Entity>? = nil,
        in directory: TemporaryDirectory? = nil
    ) async throws {
        self.directory = try directory ?? TemporaryDirectory()
        local = try await FileRepository<Entity>(
            fileURL: self.directory.url.appending(path: "device.store"), migrations: migrations)
        outbox = try await Outbox<Entity>(
            fileURL: self.directory.url.appending(path: "device.outbox"), migrations: migrations)
        if let subset {
            repository = try remote.offlineFirst(
                local: local, outbox: outbox, subset: subset, conflicts: conflicts, automaticSync: nil)
        } else {
            repository = remote.offlineFirst(
                local: local, outbox: outbox, conflicts: conflicts, automaticSync: nil)
        }
    }

    /// Closes the files, as the app does when it quits.
    func close() async throws {
        try await local.close()
        try await outbox.close()
    }
}
