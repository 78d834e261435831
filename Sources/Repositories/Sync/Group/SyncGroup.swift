import Foundation
import Synchronization

/// One sync for an app's related entity types: several offline-first repositories (one per
/// type) whose changes are kept in one database, in the order the app made them, and sent
/// so that a change goes after the changes it depends on.
///
/// ```swift
/// let file = group.appending(path: "inspections.sqlite")
/// let sync = SyncGroup(fileURL: file)
/// let inspections = try await api.inspections.offlineFirst(
///     local: try await SQLiteRepository<Inspection>(fileURL: file), group: sync)
/// let findings = try await api.findings.offlineFirst(
///     local: try await SQLiteRepository<Finding>(fileURL: file), group: sync,
///     dependsOn: { change in
///         guard case .save(let finding) = change.kind else { return [] }
///         return [SyncDependency(Inspection.self, id: finding.inspectionID)]
///     })
///
/// try await inspections.save(inspection)   // offline: kept here
/// try await findings.save(finding)         // after its inspection
/// let report = try await sync.sync()       // the inspection, then the finding
/// for await status in sync.status() { badge(status.pending) }
/// ```
///
/// The members come from `offlineFirst(local:group:conflicts:dependsOn:automaticSync:)`
/// (module `RepositoriesSQLite`): each keeps its pending changes in a table of the group's
/// database beside its local table, written in one transaction with the local row, and takes
/// their revisions from one counter in that database, so the changes of every type are
/// ordered as the app made them, in any process.
///
/// ## What a sync does
///
/// ``sync()`` (and each member's own `sync()`, which runs the group's) pushes every member's
/// pending changes, then pulls each member's remote:
///
/// - **A change goes after the changes it depends on.** A member's `dependsOn` names the
///   entities a change needs on the remote (``SyncDependency``); the change waits while one
///   of them has a pending change begun before the change's current version was made (or
///   is of a type the group has no member of in this process), and goes once that change
///   is confirmed, in the same sync. Only changes made before the sync began are sent.
/// - **Batched per type.** The types go in the order their changes wait for each other, and
///   each type's ready changes go in one push, in the requests an ungrouped repository
///   would make: a group of inspections and findings sends no more requests than the two
///   repositories apart, and no finding before its inspection.
/// - **A refused change holds back the changes that depend on it.** They are not sent to
///   fail: they stay pending, their last error ``RepositoryError/Code/heldBack`` naming the
///   change they wait for, until that change is confirmed, retried
///   (``OfflineFirstRepository/retry(id:)``) or discarded.
/// - **A transient failure stops the sync**: nothing after it is sent, no member pulls, and
///   it is thrown, as an ungrouped repository's sync does.
/// - **One sync at a time**, in this process and any other that opens the group's file (an
///   app and its extension): a sync holds the lock of the file beside the database
///   (`inspections.sqlite.sync-group.lock`) and another waits for it up to ``lockWait``,
///   then throws `locked`. A killed process lets go of it with its end.
///
/// Each member's conflicts, statuses, `retry` and `discard` work as for an ungrouped
/// ``OfflineFirstRepository``; its automatic sync runs the group's sync. A member whose outbox
/// is closed leaves the group. The group keeps its members (and they it) for as long as
/// they are open.
public final class SyncGroup: Sendable {
    /// The database that keeps the members' local tables and pending changes.
    public let fileURL: URL
    /// How long a sync waits for another process's (or instance's) sync of the group before
    /// throwing `locked`.
    public let lockWait: Duration

    private let members = Mutex<[any SyncGroupMember]>([])
    /// One sync at a time in this process; the file lock orders processes.
    private let inProcess = KeyedAsyncLock<Int>()
    private let syncLock: OutboxSyncLock

    /// The group of the offline-first repositories whose local stores are tables of the
    /// SQLite database at `fileURL`.
    ///
    /// - Parameters:
    ///   - fileURL: the members' database: every member's local store is an
    ///     `SQLiteRepository` opened on this file.
    ///   - lockWait: how long a sync waits for another process's sync of the group before
    ///     throwing `locked`; five minutes by default.
    public init(fileURL: URL, lockWait: Duration = .seconds(300)) {
        self.fileURL = fileURL
        self.lockWait = lockWait
        syncLock = OutboxSyncLock(
            url: fileURL.appendingPathExtension("sync-group.lock"), wait: lockWait,
            holding: "the sync group of \(fileURL.path)", waitSetBy: "SyncGroup(fileURL:lockWait:)")
    }

    /// The name the group's order counter has in its database: every member's outbox takes its
    /// revisions from it.
    package static var revisionTableName: String { "repositories_sync_group_revisions" }

    /// Adds `member`.
    ///
    /// - Throws: `rejected` when the group has a member of that type, or when the member keeps
    ///   its changes in another file than the group's.
    package func join(_ member: some SyncGroupMember) throws {
        guard Self.sameFile(member.outboxFile, fileURL.path) else {
            throw RepositoryError.rejected(
                "The offline-first repository of \(member.typeName) keeps its changes in \(member.outboxFile), "
                    + "not in the sync group's database \(fileURL.path)",
                recovery: "Open the member's SQLiteRepository on the group's fileURL")
        }
        try members.withLock { members in
            // A member whose outbox was closed (an account switch, a scene closed) makes way.
            members.removeAll { $0.isClosed }
            guard !members.contains(where: { $0.entityType == member.entityType }) else {
                throw RepositoryError.rejected(
                    "The sync group of \(fileURL.path) has a repository of \(member.typeName) already",
                    recovery: "Make one offline-first repository per entity type, and share it")
            }
            members.append(member)
        }
    }

    private static func sameFile(_ one: String, _ other: String) -> Bool {
        URL(fileURLWithPath: one).standardizedFileURL.resolvingSymlinksInPath().path
            == URL(fileURLWithPath: other).standardizedFileURL.resolvingSymlinksInPath().path
    }

    /// Sends every member's pending changes, each after the changes it depends on, then
    /// brings each member's remote state in (see the type's documentation).
    ///
    /// - Throws: the first transient failure (the changes not sent stay pending, their try
    ///   counted), a pull's error, or `locked` when another process's sync of the group held
    ///   on past ``lockWait``. A change the remote refuses is not thrown: it becomes rejected,
    ///   and the changes that depend on it are held back.
    /// - Returns: what the sync did, over every member: each entity named by its type and ID.
    @discardableResult
    public func sync() async throws -> SyncReport<SyncDependency> {
        let (runs, duration) = try await run()
        var report = SyncReport<SyncDependency>(pullWasIncremental: !runs.isEmpty, duration: duration)
        for run in runs {
            let part = run.report(duration: duration)
            report.sent += part.sent
            report.confirmed += part.confirmed
            report.received += part.received
            report.conflictedIDs.formUnion(part.conflictedIDs)
            report.rejections.merge(part.rejections, uniquingKeysWith: { first, _ in first })
            report.requests += part.requests
            if !part.pullWasIncremental {
                report.pullWasIncremental = false
                report.fullPullReason = report.fullPullReason ?? part.fullPullReason
            }
        }
        return report
    }

    /// Runs the group's sync for a member's own `sync()`, and returns that member's part.
    package func sync<Report: Sendable>(for entityType: ObjectIdentifier, as: Report.Type) async throws
        -> Report
    {
        let (runs, duration) = try await run()
        guard
            let report = runs.first(where: { $0.entityType == entityType })?.ownReport(duration: duration)
                as? Report
        else {
            // Its outbox was closed: it left the group.
            throw RepositoryError.closed(location: fileURL.path)
        }
        return report
    }

    /// The members' pending changes counted together, now and after every change to any of
    /// them: for one badge. The stream counts the members the group has when it is made.
    ///
    /// ```swift
    /// for await status in group.status() {
    ///     badge = status.pending == 0 ? nil : "\(status.pending)"
    /// }
    /// ```
    public func status() -> AsyncStream<SyncGroupStatus> {
        let members = members.withLock { $0 }
        let (stream, continuation) = AsyncStream.makeStream(
            of: SyncGroupStatus.self, bufferingPolicy: .bufferingNewest(1))
        if members.isEmpty { continuation.yield(SyncGroupStatus()) }
        let (updates, update) = AsyncStream.makeStream(of: (ObjectIdentifier, SyncGroupStatus).self)
        let followers = members.map { member in
            Task {
                for await status in member.statusUpdates() { update.yield((member.entityType, status)) }
            }
        }
        let task = Task {
            var counts: [ObjectIdentifier: SyncGroupStatus] = [:]
            let ending = Task {
                for follower in followers { await follower.value }
                update.finish()
            }
            for await (type, status) in updates {
                counts[type] = status
                if counts.count == members.count {
                    continuation.yield(counts.values.reduce(SyncGroupStatus(), +))
                }
            }
            ending.cancel()
            continuation.finish()
        }
        continuation.onTermination = { _ in
            task.cancel()
            for follower in followers { follower.cancel() }
            update.finish()
        }
        return stream
    }

    // MARK: The sync

    /// One sync of every member: the runs, in the members' order, and how long it took.
    private func run() async throws -> ([any SyncGroupRun], Duration) {
        let members = members.withLock { members in
            // A member whose outbox was closed has left the group.
            members.removeAll { $0.isClosed }
            return members
        }.sorted { $0.typeName < $1.typeName }
        for member in members { try await member.prepare() }
        return try await inProcess.withLock(.all) {
            try await syncLock.holding {
                let start = ContinuousClock.now
                let runs = members.map { $0.begin() }
                do {
                    try await Self.holdingAll(members[...]) {
                        try await push(runs)
                        for run in runs { try await run.pull() }
                        for run in runs { try run.finish(with: nil) }
                    }
                } catch {
                    for run in runs {
                        do { try run.finish(with: error) } catch {}
                    }
                    throw error
                }
                return (runs, ContinuousClock.now - start)
            }
        }
    }

    /// Runs `body` holding every member outbox's sync lock, in the members' order.
    private static func holdingAll(
        _ members: ArraySlice<any SyncGroupMember>, _ body: () async throws -> Void
    ) async throws {
        guard let first = members.first else { return try await body() }
        try await first.whileSyncing { try await holdingAll(members.dropFirst(), body) }
    }

    /// Pushes every member's changes in the plan's order (``SyncGroupPlan``): in rounds,
    /// each type's ready changes at once, until a round sends nothing; then notes on each
    /// change still waiting what holds it back.
    ///
    /// Only changes made before the sync began go (up to the counter read first: every change
    /// up to it is committed, so each member's read sees it); a change made since, or one
    /// replaced since it was planned, waits for the next sync or round, and so the rounds end.
    /// Every pending change read holds back what depends on it, whenever it was made.
    private func push(_ runs: [any SyncGroupRun]) async throws {
        guard let first = runs.first else { return }
        let latest = try await first.latestRevision()
        let members = Set(runs.map(\.entityType))
        let byType = Dictionary(runs.map { ($0.entityType, $0) }, uniquingKeysWith: { first, _ in first })
        // The members' changes as last read, read again only after a push changed them.
        var read: [GroupedChange]?
        func changes() async throws -> [GroupedChange] {
            if let read { return read }
            var all: [GroupedChange] = []
            for run in runs { all += try await run.changes() }
            read = all
            return all
        }
        var tried = Set<GroupedChange.Version>()
        var sent = true
        while sent {
            sent = false
            // A new round reads again: another process may have written meanwhile.
            read = nil
            for type in SyncGroupPlan.typeOrder(try await changes(), members: members) {
                try Task.checkCancellation()
                let ready = SyncGroupPlan.ready(
                    try await changes(), of: type, members: members, upTo: latest, excluding: tried)
                guard !ready.isEmpty, let run = byType[type] else { continue }
                tried.formUnion(ready.map { GroupedChange.Version(entity: $0.key, revision: $0.value) })
                read = nil
                try await run.push(ready)
                sent = true
            }
        }
        let all = try await changes()
        let blockers = SyncGroupPlan.blockers(in: all, members: members)
        for run in runs {
            var held: [SyncDependency: (revision: UInt64, error: RepositoryError)] = [:]
            for change in all where change.entity.type == run.entityType && !change.rejected {
                if let error = SyncGroupPlan.heldBack(change.entity, by: blockers) {
                    held[change.entity] = (change.revision, error)
                }
            }
            try await run.hold(held)
        }
    }
}
