import Foundation
import Repositories
import Synchronization

/// A field inspection, the parent of its ``Finding``s: the related types a `SyncGroup` syncs.
public struct Inspection: Codable, Identifiable, Sendable, Equatable {
    /// The ID.
    public var id: Int
    /// Where the inspection took place.
    public var site: String
    /// Whether the inspector signed it off.
    public var done: Bool

    /// An inspection.
    public init(id: Int, site: String, done: Bool = false) {
        self.id = id
        self.site = site
        self.done = done
    }
}

/// Something an inspection found: the server refuses one whose inspection it lacks.
public struct Finding: Codable, Identifiable, Sendable, Equatable {
    /// The ID.
    public var id: Int
    /// The inspection it belongs to.
    public var inspectionID: Int
    /// What was found.
    public var note: String

    /// A finding of `inspectionID`.
    public init(id: Int, inspectionID: Int, note: String) {
        self.id = id
        self.inspectionID = inspectionID
        self.note = note
    }

    /// What a finding's change needs on the remote first: its inspection (a delete needs
    /// nothing).
    @Sendable public static func dependencies(_ change: PendingChange<Finding>) -> [SyncDependency] {
        guard case .save(let finding) = change.kind else { return [] }
        return [SyncDependency(Inspection.self, id: finding.inspectionID)]
    }
}

/// An inspections API and a findings API in front of two stores, as a server with a foreign
/// key has them: a finding (or a batch holding one) whose inspection the inspections store
/// lacks is refused with a 422 and nothing of the request applied. Every write request is
/// logged, in the order the server took them across both APIs, and every refusal of a
/// finding for want of its inspection is counted.
public final class InspectionServer: Sendable {
    /// The inspections API.
    public let inspections: AnyRepository<Inspection, Int>
    /// The findings API.
    public let findings: AnyRepository<Finding, Int>
    private let record: Record

    /// What the server took, behind its lock.
    private final class Record: Sendable {
        struct State {
            var log: [Write] = []
            var orphans: [Int] = []
        }
        let state = Mutex(State())
    }

    /// A write request the server took, applied or refused.
    public struct Write: Sendable, Equatable, CustomStringConvertible {
        /// `Inspection` or `Finding`.
        public var type: String
        /// The IDs it carried.
        public var ids: [Int]
        /// Whether it deleted.
        public var isDelete: Bool

        /// "Finding save [10, 11]".
        public var description: String { "\(type) \(isDelete ? "delete" : "save") \(ids)" }
    }

    /// The server over `inspections` and `findings`, which keep what it applies.
    public init(
        inspections inspectionStore: some Repository<Inspection, Int>,
        findings findingStore: some Repository<Finding, Int>
    ) {
        let record = Record()
        @Sendable func log(_ type: String, _ ids: [Int], delete: Bool) {
            record.state.withLock { $0.log.append(Write(type: type, ids: ids, isDelete: delete)) }
        }
        var inspections = AnyRepository<Inspection, Int>(inspectionStore)
        inspections.onSave = { inspection in
            log("Inspection", [inspection.id], delete: false)
            try await inspectionStore.save(inspection)
        }
        inspections.onSaveContentsOf = { batch in
            log("Inspection", batch.map(\.id), delete: false)
            try await inspectionStore.save(contentsOf: batch)
        }
        inspections.onDelete = { id in
            log("Inspection", [id], delete: true)
            try await inspectionStore.delete(id: id)
        }
        inspections.onDeleteIDs = { ids in
            log("Inspection", ids, delete: true)
            try await inspectionStore.delete(ids: ids)
        }
        var findings = AnyRepository<Finding, Int>(findingStore)
        @Sendable func refuseOrphans(_ batch: [Finding]) async throws {
            let wanted = Set(batch.map(\.inspectionID))
            let held = Set(try await inspectionStore.fetch(ids: Array(wanted)).map(\.id))
            let orphans = batch.filter { !held.contains($0.inspectionID) }
            guard let first = orphans.first else { return }
            record.state.withLock { $0.orphans += orphans.map(\.id) }
            throw RepositoryError(
                .rejected,
                reason: "Finding \(first.id) names inspection \(first.inspectionID), which does not exist",
                recovery: "Create the inspection first", httpStatus: 422,
                fieldErrors: ["inspectionID": ["does not exist"]])
        }
        findings.onSave = { finding in
            log("Finding", [finding.id], delete: false)
            try await refuseOrphans([finding])
            try await findingStore.save(finding)
        }
        findings.onSaveContentsOf = { batch in
            log("Finding", batch.map(\.id), delete: false)
            try await refuseOrphans(batch)
            try await findingStore.save(contentsOf: batch)
        }
        findings.onDelete = { id in
            log("Finding", [id], delete: true)
            try await findingStore.delete(id: id)
        }
        findings.onDeleteIDs = { ids in
            log("Finding", ids, delete: true)
            try await findingStore.delete(ids: ids)
        }
        self.inspections = inspections
        self.findings = findings
        self.record = record
    }

    /// Every write request taken, in order.
    public var log: [Write] { record.state.withLock { $0.log } }

    /// The findings refused because their inspection did not exist, each time it happened.
    public var orphansRefused: [Int] { record.state.withLock { $0.orphans } }

    /// The findings saved in a request before any request that saved their inspection
    /// (`inspectionOf` tells a finding's inspection): what a sync in causal order never sends.
    public func findingsSentBeforeTheirInspection(inspectionOf: [Int: Int]) -> [Int] {
        var inspectionsSent = Set<Int>()
        var early: [Int] = []
        for write in log where !write.isDelete {
            if write.type == "Inspection" {
                inspectionsSent.formUnion(write.ids)
            } else {
                early += write.ids.filter { id in
                    inspectionOf[id].map { !inspectionsSent.contains($0) } ?? false
                }
            }
        }
        return early
    }
}
