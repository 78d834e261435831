import Foundation
import Synchronization

/// What a member of a ``SyncGroup`` keeps of the group: the group, and the dependencies of
/// its changes.
struct SyncGroupMembership<Entity: Codable & Identifiable & Sendable>: Sendable
where Entity.ID: Codable & Sendable {
    let group: SyncGroup
    let dependsOn: @Sendable (PendingChange<Entity>) -> [SyncDependency]
}

/// An ``OfflineFirstRepository`` as its ``SyncGroup`` drives it.
struct SyncGroupMemberOf<Remote: Repository, Local: Repository>: SyncGroupMember
where Local.Entity == Remote.Entity, Local.ID == Remote.ID, Remote.Entity: Codable, Remote.ID: Codable {
    typealias Entity = Remote.Entity
    let repository: OfflineFirstRepository<Remote, Local>

    init(_ repository: OfflineFirstRepository<Remote, Local>) {
        self.repository = repository
    }

    var entityType: ObjectIdentifier { ObjectIdentifier(Entity.self) }
    var typeName: String { String(describing: Entity.self) }
    var outboxFile: String { repository.outbox.fileURL.path }
    var isClosed: Bool { repository.outbox.isClosed }

    func prepare() async throws {
        try await repository.prepared()
    }

    func whileSyncing(_ body: () async throws -> Void) async throws {
        try await repository.outbox.whileSyncing(body)
    }

    func begin() -> any SyncGroupRun {
        SyncGroupRunOf(repository)
    }

    func statusUpdates() -> AsyncStream<SyncGroupStatus> {
        let changes = repository.outbox.pendingChanges()
        return AsyncStream { continuation in
            let task = Task {
                for await changes in changes { continuation.yield(SyncGroupStatus(changes)) }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}

/// One member's part of one ``SyncGroup`` sync: a tally of what it did, and the IDs of the
/// changes it read, by the names the group plans with.
final class SyncGroupRunOf<Remote: Repository, Local: Repository>: SyncGroupRun
where Local.Entity == Remote.Entity, Local.ID == Remote.ID, Remote.Entity: Codable, Remote.ID: Codable {
    typealias Entity = Remote.Entity
    typealias ID = Remote.ID
    let repository: OfflineFirstRepository<Remote, Local>
    private let tally = SyncTally<ID>()
    private let ids = Mutex<[SyncDependency: ID]>([:])

    init(_ repository: OfflineFirstRepository<Remote, Local>) {
        self.repository = repository
    }

    var entityType: ObjectIdentifier { ObjectIdentifier(Entity.self) }

    func latestRevision() async throws -> UInt64 {
        try await repository.outbox.latestRevision()
    }

    func changes() async throws -> [GroupedChange] {
        let records = try await repository.outbox.records()
        let membership = repository.membership
        var named: [SyncDependency: ID] = [:]
        let changes = records.map { record in
            let entity = SyncDependency(Entity.self, id: record.id)
            named[entity] = record.id
            return GroupedChange(
                entity: entity, revision: record.revision, firstRevision: record.firstRevision,
                rejected: record.rejected, dependencies: membership.map { $0.dependsOn(record.change) } ?? [])
        }
        ids.withLock { $0.merge(named, uniquingKeysWith: { _, new in new }) }
        return changes
    }

    /// `byEntity`'s values by the member's IDs of their entities.
    private func byID<Value>(_ byEntity: [SyncDependency: Value]) -> [ID: Value] {
        let named = ids.withLock { $0 }
        var byID: [ID: Value] = [:]
        for (entity, value) in byEntity {
            if let id = named[entity] { byID[id] = value }
        }
        return byID
    }

    func push(_ versions: [SyncDependency: UInt64]) async throws {
        try await repository.push(tally, only: byID(versions))
    }

    func hold(_ held: [SyncDependency: (revision: UInt64, error: RepositoryError)]) async throws {
        try await repository.outbox.hold(byID(held))
    }

    func pull() async throws {
        try await repository.pull(tally)
    }

    func finish(with error: (any Error)?) throws {
        if error == nil { try repository.outbox.noteSynced(at: Date()) }
        repository.engine.syncEnded(with: error)
    }

    func report(duration: Duration) -> SyncReport<SyncDependency> {
        let own = tally.report(duration: duration)
        return SyncReport(
            sent: own.sent, confirmed: own.confirmed, received: own.received,
            conflictedIDs: Set(own.conflictedIDs.map { SyncDependency(Entity.self, id: $0) }),
            rejections: Dictionary(
                own.rejections.map { (SyncDependency(Entity.self, id: $0.key), $0.value) },
                uniquingKeysWith: { first, _ in first }),
            requests: own.requests, pullWasIncremental: own.pullWasIncremental,
            fullPullReason: own.fullPullReason.map { "\(String(describing: Entity.self)): \($0)" },
            duration: duration)
    }

    func ownReport(duration: Duration) -> any Sendable {
        tally.report(duration: duration)
    }
}
