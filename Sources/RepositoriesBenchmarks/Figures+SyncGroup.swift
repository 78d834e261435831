import Foundation
import Repositories
import RepositoriesSQLite
import Synchronization

extension BenchmarkRun {
    /// Figure 20: one `SyncGroup` sync of 1,000 changes across two related types (250
    /// inspections made offline, each with 3 findings, saved in the order an inspector makes
    /// them) against a server that refuses a finding whose inspection it lacks, compared with
    /// the same changes synced by two ungrouped offline-first repositories (the inspections
    /// first, the order that lets every finding through): the calls each made to the server,
    /// and the time each sync took. The group must make no more calls and send no finding
    /// before its inspection; the run fails if a finding was refused.
    func syncGroupFigures() async throws -> [Figure] {
        var groupedTimes: [Double] = []
        var apartTimes: [Double] = []
        var groupedRequests = 0
        var apartRequests = 0
        for _ in 0..<repetitions {
            let grouped = try await groupSync()
            let apart = try await ungroupedSync()
            groupedTimes.append(grouped.duration.nanoseconds)
            apartTimes.append(apart.duration.nanoseconds)
            groupedRequests = grouped.requests
            apartRequests = apart.requests
        }
        let groupedTime = Measurement(runs: groupedTimes)
        let apartTime = Measurement(runs: apartTimes)
        return [
            Figure(
                number: 20, name: "SyncGroup sync of 1,000 changes across two types, calls to the server",
                measured: "\(groupedRequests) calls",
                baseline: "two ungrouped repositories: \(apartRequests) calls",
                ratio: Double(groupedRequests) / Double(apartRequests), target: 1.0, goal: .atMost,
                note: "250 inspections, 750 findings; no finding before its inspection, none refused"),
            .cost(
                20, "SyncGroup sync of 1,000 changes across two types, time", measured: groupedTime,
                baseline: apartTime, baselineName: "two ungrouped repositories", target: nil,
                note:
                    "the group reads both outboxes three times (to plan, between the types, after) and the counter once"
            ),
        ]
    }

    /// The changes of figure 20: 250 inspections, each followed by its 3 findings.
    private static var madeOffline: [(GroupInspection, [GroupFinding])] {
        (1...250).map { number in
            (
                GroupInspection(id: number, site: "site \(number)"),
                (1...3).map {
                    GroupFinding(id: number * 10 + $0, inspectionID: number, note: "finding \($0)")
                }
            )
        }
    }

    /// One group sync of figure 20's changes, made in a fresh database.
    private func groupSync() async throws -> (duration: Duration, requests: Int) {
        let server = GroupServer()
        let url = file("group.sqlite")
        let group = SyncGroup(fileURL: url)
        let inspectionTable = try await SQLiteRepository<GroupInspection>(fileURL: url)
        let findingTable = try await SQLiteRepository<GroupFinding>(fileURL: url)
        let inspections = try await server.inspections.offlineFirst(
            local: inspectionTable, group: group, automaticSync: nil)
        let findings = try await server.findings.offlineFirst(
            local: findingTable, group: group, dependsOn: GroupFinding.dependencies, automaticSync: nil)
        for (inspection, batch) in Self.madeOffline {
            try await inspections.save(inspection)
            try await findings.save(contentsOf: batch)
        }
        let start = ContinuousClock.now
        let report = try await group.sync()
        let duration = ContinuousClock.now - start
        try server.check(confirmed: report.confirmed, "the group")
        try await findings.outbox.close()
        try await inspections.outbox.close()
        try await findingTable.close()
        try await inspectionTable.close()
        return (duration, report.requests)
    }

    /// Figure 20's changes synced by two ungrouped repositories, the inspections first.
    private func ungroupedSync() async throws -> (duration: Duration, requests: Int) {
        let server = GroupServer()
        let inspectionTable = try await SQLiteRepository<GroupInspection>(fileURL: file("inspections.sqlite"))
        let findingTable = try await SQLiteRepository<GroupFinding>(fileURL: file("findings.sqlite"))
        let inspectionOutbox = try await Outbox(in: inspectionTable)
        let findingOutbox = try await Outbox(in: findingTable)
        let inspections = server.inspections.offlineFirst(
            local: inspectionTable, outbox: inspectionOutbox, automaticSync: nil)
        let findings = server.findings.offlineFirst(
            local: findingTable, outbox: findingOutbox, automaticSync: nil)
        for (inspection, batch) in Self.madeOffline {
            try await inspections.save(inspection)
            try await findings.save(contentsOf: batch)
        }
        let start = ContinuousClock.now
        let first = try await inspections.sync()
        let second = try await findings.sync()
        let duration = ContinuousClock.now - start
        try server.check(confirmed: first.confirmed + second.confirmed, "the ungrouped repositories")
        try await findingOutbox.close()
        try await inspectionOutbox.close()
        try await findingTable.close()
        try await inspectionTable.close()
        return (duration, first.requests + second.requests)
    }
}

/// Figure 20's inspection.
struct GroupInspection: Codable, Identifiable, Sendable, Equatable {
    var id: Int
    var site: String
}

/// Figure 20's finding, which needs its inspection on the server.
struct GroupFinding: Codable, Identifiable, Sendable, Equatable {
    var id: Int
    var inspectionID: Int
    var note: String

    @Sendable static func dependencies(_ change: PendingChange<GroupFinding>) -> [SyncDependency] {
        guard case .save(let finding) = change.kind else { return [] }
        return [SyncDependency(GroupInspection.self, id: finding.inspectionID)]
    }
}

/// Figure 20's server: two in-memory collections; a batch of findings with one whose
/// inspection is missing is refused whole and counted, and every finding saved before its
/// inspection is counted too.
final class GroupServer: Sendable {
    let inspections: AnyRepository<GroupInspection, Int>
    let findings: AnyRepository<GroupFinding, Int>
    private let inspectionStore = InMemoryRepository<GroupInspection>()
    private let findingStore = InMemoryRepository<GroupFinding>()
    private let refused = Refusals()

    /// The findings refused for want of their inspection.
    private final class Refusals: Sendable {
        let count = Mutex(0)
    }

    init() {
        let (inspectionStore, findingStore, refused) = (inspectionStore, findingStore, refused)
        inspections = AnyRepository(inspectionStore)
        var findings = AnyRepository<GroupFinding, Int>(findingStore)
        @Sendable func take(_ batch: [GroupFinding]) async throws {
            let known = Set(try await inspectionStore.fetch(ids: batch.map(\.inspectionID)).map(\.id))
            let orphans = batch.filter { !known.contains($0.inspectionID) }.count
            guard orphans == 0 else {
                refused.count.withLock { $0 += orphans }
                throw RepositoryError(
                    .rejected, reason: "a finding names an inspection the server lacks", httpStatus: 422)
            }
            try await findingStore.save(contentsOf: batch)
        }
        findings.onSave = { try await take([$0]) }
        findings.onSaveContentsOf = { try await take($0) }
        self.findings = findings
    }

    /// Fails the run unless `who` had every change confirmed and no finding refused.
    func check(confirmed: Int, _ who: String) throws {
        let refusals = refused.count.withLock { $0 }
        guard refusals == 0, confirmed == 1_000 else {
            throw BenchmarkFailure(
                description:
                    "\(who): \(confirmed) of 1,000 changes confirmed, \(refusals) findings refused for want of their inspection"
            )
        }
    }
}
