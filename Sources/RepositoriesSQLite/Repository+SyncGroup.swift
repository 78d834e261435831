import Foundation
import Repositories

extension Repository where Entity: Codable, ID: Codable {
    /// This repository as the remote of an offline-first repository that belongs to `group`:
    /// its local store is `local`, a table of the group's database, and its pending changes
    /// are kept in that database too, ordered with every other member's, and sent by the
    /// group's sync after the changes they depend on.
    ///
    /// ```swift
    /// let sync = SyncGroup(fileURL: file)
    /// let inspections = try await api.inspections.offlineFirst(
    ///     local: try await SQLiteRepository<Inspection>(fileURL: file), group: sync)
    /// let findings = try await api.findings.offlineFirst(
    ///     local: try await SQLiteRepository<Finding>(fileURL: file), group: sync,
    ///     dependsOn: { change in
    ///         guard case .save(let finding) = change.kind else { return [] }
    ///         return [SyncDependency(Inspection.self, id: finding.inspectionID)]
    ///     })
    /// ```
    ///
    /// The outbox is `Outbox(in: local)`'s (its tables and files are named the same; an
    /// outbox opened so before is taken over, its changes kept), except that its revisions
    /// come from the group's counter (the table `repositories_sync_group_revisions`), which
    /// orders the changes of every member as the app made them, in any process. Close the
    /// repository's `outbox`, then `local`, when done.
    ///
    /// - Parameters:
    ///   - local: the member's local store, opened on the group's `SyncGroup.fileURL`.
    ///   - group: the group whose sync sends this member's changes.
    ///   - conflicts: how a remote that changed since a change was made is settled.
    ///   - dependsOn: the entities, of any member, that a pending change needs on the remote
    ///     before it is sent; none by default. Called at every sync, with the change as it is
    ///     then (a delete too: return `[]` for a delete that needs nothing).
    ///   - automaticSync: when the group's sync starts by itself after this member's writes;
    ///     `nil`: only when called.
    ///   - migrations: the entity's version and upgrades for changes queued by an earlier
    ///     release; by default `local`'s own.
    /// - Throws: `rejected` when `local` is not on the group's file (or in memory), or when the
    ///   group has a member of this entity type; what `Outbox(in:)` throws, with nothing
    ///   left open.
    public func offlineFirst(
        local: SQLiteRepository<Entity>, group: SyncGroup,
        conflicts: ConflictPolicy<Entity> = .mergeFields(tie: .remote),
        dependsOn: @escaping @Sendable (PendingChange<Entity>) -> [SyncDependency] = { _ in [] },
        automaticSync: AutomaticSync? = .afterWrites, migrations: Migrations<Entity>? = nil
    ) async throws -> OfflineFirstRepository<Self, SQLiteRepository<Entity>> {
        let standardized = { (url: URL) in url.standardizedFileURL.resolvingSymlinksInPath().path }
        guard let file = local.fileURL, standardized(file) == standardized(group.fileURL) else {
            throw RepositoryError.rejected(
                "The local store of \(Entity.self) is \(local.fileURL?.path ?? "in memory"), not the sync group's "
                    + "database \(group.fileURL.path): a group keeps every member's changes in its own file",
                recovery: "Open the SQLiteRepository with the group's fileURL")
        }
        let outbox = try await Outbox(
            in: local, lockWait: group.lockWait, migrations: migrations, inGroup: true)
        do {
            return try OfflineFirstRepository(
                remote: self, local: local, outbox: outbox, group: group, conflicts: conflicts,
                dependsOn: dependsOn, automaticSync: automaticSync)
        } catch {
            do { try await outbox.close() } catch {}
            throw error
        }
    }
}
