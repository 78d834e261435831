import ExampleSupport
import Repositories
import Synchronization

/// The simulated inspections and findings API: two in-memory collections behind one network
/// switch, with the rules of a real back-end. An inspection with no site is refused (422,
/// "site: must not be blank"), and so is a finding whose inspection the API does not have
/// (422, "inspectionID: no such inspection"), counted: the group's sync must never make it
/// refuse one. A batch with a refused entity is refused whole, nothing of it applied. Every
/// write request is logged, in the order the API took them.
final class InspectionsAPI: Sendable {
    /// The switch both collections sit behind.
    let network: NetworkSwitch
    /// What the API holds, whatever the switch says.
    let inspectionStore = InMemoryRepository<Inspection>()
    /// What the API holds, whatever the switch says.
    let findingStore = InMemoryRepository<Finding>()
    /// The inspections collection, as the app reaches it.
    let inspections: SwitchedRepository<AnyRepository<Inspection, Int>>
    /// The findings collection, as the app reaches it.
    let findings: SwitchedRepository<AnyRepository<Finding, Int>>
    private let box = Box()

    private struct Record {
        var log: [String] = []
        var orphansRefused = 0
    }

    /// The API, reachable unless `online` is `false`.
    init(online: Bool) {
        network = NetworkSwitch(online: online)
        let (inspectionStore, findingStore, record) = (inspectionStore, findingStore, box)
        var inspections = AnyRepository<Inspection, Int>(inspectionStore)
        inspections.onSave = { inspection in try await Self.take([inspection], into: inspectionStore, record)
        }
        inspections.onSaveContentsOf = { batch in try await Self.take(batch, into: inspectionStore, record) }
        var findings = AnyRepository<Finding, Int>(findingStore)
        findings.onSave = { finding in
            try await Self.take([finding], into: findingStore, record, knowing: inspectionStore)
        }
        findings.onSaveContentsOf = { batch in
            try await Self.take(batch, into: findingStore, record, knowing: inspectionStore)
        }
        self.inspections = SwitchedRepository(
            inspections, network: network, latency: .milliseconds(5), name: "The inspections API")
        self.findings = SwitchedRepository(
            findings, network: network, latency: .milliseconds(5), name: "The findings API")
    }

    /// The write requests the API took, in order: "POST /inspections [1, 2]: 422 …".
    var log: [String] { box.record.withLock { $0.log } }

    /// How many findings the API refused because their inspection did not exist.
    var orphansRefused: Int { box.record.withLock { $0.orphansRefused } }

    /// Logs a request, then applies `batch` to `store` unless a rule refuses it.
    private static func take(_ batch: [Inspection], into store: InMemoryRepository<Inspection>, _ record: Box)
        async throws
    {
        let path = "POST /inspections \(batch.map(\.id))"
        if let blank = batch.first(where: { $0.site.isEmpty }) {
            record.note("\(path): 422, inspection \(blank.id): site must not be blank")
            throw RepositoryError(
                .rejected, reason: "Inspection \(blank.id): site must not be blank", httpStatus: 422,
                fieldErrors: ["site": ["must not be blank"]])
        }
        try await store.save(contentsOf: batch)
        record.note("\(path): 200")
    }

    /// Logs a request, then applies `batch` to `store` unless a finding's inspection is
    /// missing from `inspections`.
    private static func take(
        _ batch: [Finding], into store: InMemoryRepository<Finding>, _ record: Box,
        knowing inspections: InMemoryRepository<Inspection>
    ) async throws {
        let path = "POST /findings \(batch.map(\.id))"
        let known = Set(try await inspections.fetch(ids: batch.map(\.inspectionID)).map(\.id))
        if let orphan = batch.first(where: { !known.contains($0.inspectionID) }) {
            record.note(
                "\(path): 422, finding \(orphan.id): no such inspection \(orphan.inspectionID)", orphan: true)
            throw RepositoryError(
                .rejected, reason: "Finding \(orphan.id): no such inspection \(orphan.inspectionID)",
                httpStatus: 422, fieldErrors: ["inspectionID": ["no such inspection"]])
        }
        try await store.save(contentsOf: batch)
        record.note("\(path): 200")
    }

    /// The log, shared with the collections' closures.
    private final class Box: Sendable {
        let record = Mutex(Record())
        func note(_ line: String, orphan: Bool = false) {
            record.withLock {
                $0.log.append(line)
                if orphan { $0.orphansRefused += 1 }
            }
        }
    }
}
