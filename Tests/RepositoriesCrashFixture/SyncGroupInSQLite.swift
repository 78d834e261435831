import Foundation
import Repositories
import RepositoriesSQLite
import RepositoriesTestSupport

/// `sync-group-sqlite <device-dir> <remote-dir> <first-id> <seed> <role>`: one process of a
/// device whose inspections and findings are one `SyncGroup` in `device.sqlite`, over an
/// ``InspectionServer`` whose stores are SQLite files in `remote-dir` (shared with the other
/// process and the test), writing until it is killed.
///
/// - `app`: creates inspections (IDs from `first-id`) with findings (`inspection * 100 + n`),
///   edits them, moves some findings to another inspection, deletes some of its findings,
///   syncs every few writes.
/// - `extension`: adds findings (IDs from `first-id`) to inspections it reads from the shared
///   table, the app's unsynced ones included, edits, moves and deletes some of them, syncs.
///
/// Prints `try save KEY REVISION` or `try delete KEY` before each write and `saved KEY
/// REVISION` or `deleted KEY` once it returned, a key being `I` or `F` and the ID (`F501`); an
/// entity's revision is the number its `site` or `note` ends with. After each sync, `rejected
/// ENTITY: REASON` for each change the server refused, then `synced`.
func syncGroupInSQLite(device: URL, remote: URL, firstID: Int, seed: UInt64, role: String) async throws {
    let server = InspectionServer(
        inspections: try await SQLiteRepository<Inspection>(
            fileURL: remote.appending(path: "inspections.sqlite")),
        findings: try await SQLiteRepository<Finding>(fileURL: remote.appending(path: "findings.sqlite")))
    let file = device.appending(path: "device.sqlite")
    let group = SyncGroup(fileURL: file)
    let inspectionTable = try await SQLiteRepository<Inspection>(fileURL: file)
    let inspections = try await server.inspections.offlineFirst(
        local: inspectionTable, group: group, conflicts: .lastWriterWins, automaticSync: nil)
    let findings = try await server.findings.offlineFirst(
        local: try await SQLiteRepository<Finding>(fileURL: file), group: group, conflicts: .lastWriterWins,
        dependsOn: Finding.dependencies, automaticSync: nil)
    var random = SeededRandomNumberGenerator(seed: seed)
    var myFindings: [Finding] = []
    var next = firstID
    say("ready")

    func save(_ inspection: Inspection, revision: Int) async throws {
        say("try save I\(inspection.id) \(revision)")
        try await inspections.save(inspection)
        say("saved I\(inspection.id) \(revision)")
    }
    func save(_ batch: [Finding], revision: Int) async throws {
        for finding in batch { say("try save F\(finding.id) \(revision)") }
        if batch.count == 1 {
            try await findings.save(batch[0])
        } else {
            try await findings.save(contentsOf: batch)
        }
        for finding in batch { say("saved F\(finding.id) \(revision)") }
        myFindings += batch.filter { finding in !myFindings.contains { $0.id == finding.id } }
    }
    func finding(_ id: Int, of inspection: Int, revision: Int) -> Finding {
        Finding(id: id, inspectionID: inspection, note: "note \(revision)")
    }

    while true {
        let choice = Int.random(in: 0..<10, using: &random)
        switch (role, choice) {
        case ("app", 0...3):
            // An inspection and its first findings, as an inspector makes them.
            let inspection = next
            next += 1
            try await save(Inspection(id: inspection, site: "site 0"), revision: 0)
            let count = Int.random(in: 1...3, using: &random)
            try await save(
                (1...count).map { finding(inspection * 100 + $0, of: inspection, revision: 0) }, revision: 0)
        case ("app", 4) where next > firstID:
            let inspection = Int.random(in: firstID..<next, using: &random)
            let revision = Int.random(in: 1..<1_000, using: &random)
            try await save(
                Inspection(id: inspection, site: "site \(revision)", done: true), revision: revision)
        case ("extension", 0...4):
            // A finding on an inspection of the shared table, synced or not.
            guard let inspection = try await inspectionTable.fetchAll().randomElement(using: &random) else {
                try await Task.sleep(for: .milliseconds(5))
                continue
            }
            try await save([finding(next, of: inspection.id, revision: 0)], revision: 0)
            next += 1
        case (_, 5) where !myFindings.isEmpty:
            // An edit, half of them moving the finding to another inspection, synced or not.
            let index = Int.random(in: 0..<myFindings.count, using: &random)
            if Bool.random(using: &random),
                let other = try await inspectionTable.fetchAll().randomElement(using: &random)
            {
                myFindings[index].inspectionID = other.id
            }
            let edited = myFindings[index]
            let revision = Int.random(in: 1..<1_000, using: &random)
            try await save(
                [finding(edited.id, of: edited.inspectionID, revision: revision)], revision: revision)
        case (_, 6) where myFindings.count > 3:
            let gone = myFindings.remove(at: Int.random(in: 0..<myFindings.count, using: &random))
            say("try delete F\(gone.id)")
            try await findings.delete(id: gone.id)
            say("deleted F\(gone.id)")
        case (_, 7...9):
            let report = try await group.sync()
            // A refusal here is one the server had to make: the test counts it.
            for (entity, error) in report.rejections { say("rejected \(entity): \(error.reason)") }
            say("synced")
        default:
            continue
        }
    }
}
