import Repositories

/// A site inspection: the parent of its findings. The API refuses one with no site.
struct Inspection: Codable, Identifiable, Sendable, Equatable {
    var id: Int
    var site: String
}

/// Something an inspection found. The API refuses a finding whose inspection it does not have
/// (as a database with a foreign key does).
struct Finding: Codable, Identifiable, Sendable, Equatable {
    var id: Int
    var inspectionID: Int
    var note: String

    /// What a finding's change needs on the API first: its inspection. A delete needs nothing.
    @Sendable static func dependencies(_ change: PendingChange<Finding>) -> [SyncDependency] {
        guard case .save(let finding) = change.kind else { return [] }
        return [SyncDependency(Inspection.self, id: finding.inspectionID)]
    }
}
