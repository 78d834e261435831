import Foundation
import Repositories
import RepositoriesSQLite
import RepositoriesTestSupport
import Testing

/// Two processes on one device's `SyncGroup` of inspections and findings (an app creating
/// inspections with findings, an extension adding findings to them, synced or not), both
/// writing and syncing at once against a server that refuses (422) a finding whose
/// inspection it lacks, killed with SIGKILL at random points, one and then the other, over
/// many rounds. After each round, before any sync: every pending change is what its table
/// shows, every acknowledged write is there, and no change was refused (the server never had
/// to refuse a finding). After one sync here: nothing pending, the server holds exactly what
/// was acknowledged, and the device equals it.
@Suite(.serialized) struct SQLiteSyncGroupCrashTests {
    /// What a process said before it was killed, by key (`I5`, `F501`): the revision each
    /// acknowledged write left (`nil`: deleted), the writes a kill may have caught half way,
    /// the highest ID it created, and how often it synced.
    struct Transcript {
        var acknowledged: [String: Int?] = [:]
        var inFlight: [String: Int?] = [:]
        var highestID = -1
        var synced = 0
        /// The refusals the processes' syncs reported.
        var rejected: [String] = []

        init(_ lines: [String]) {
            for line in lines {
                let words = line.split(separator: " ").map(String.init)
                switch words.first {
                case "try" where words.count >= 3:
                    inFlight.updateValue(words[1] == "save" ? Int(words[3]) : nil, forKey: words[2])
                    highestID = max(highestID, Self.creatorID(words[2]))
                case "saved" where words.count == 3:
                    acknowledged.updateValue(Int(words[2]), forKey: words[1])
                    inFlight.removeValue(forKey: words[1])
                case "deleted" where words.count == 2:
                    acknowledged.updateValue(nil, forKey: words[1])
                    inFlight.removeValue(forKey: words[1])
                case "synced": synced += 1
                case "rejected": rejected.append(line)
                default: continue
                }
            }
        }

        /// The ID a key's creator counted from: an inspection's, a finding's own above
        /// the extension's first ID, else its inspection's.
        static func creatorID(_ key: String) -> Int {
            let id = Int(key.dropFirst()) ?? -1
            return key.hasPrefix("F") && id < 1_000_000 ? id / 100 : id
        }
    }

    /// An entity's revision: the number its text ends with.
    static func revision(_ text: String) -> Int { Int(text.split(separator: " ").last ?? "") ?? -1 }

    /// The device's state by key: each inspection's and finding's revision.
    static func state(
        inspections: [Inspection], findings: [Finding]
    ) -> [String: Int] {
        var state: [String: Int] = [:]
        for inspection in inspections { state["I\(inspection.id)"] = revision(inspection.site) }
        for finding in findings { state["F\(finding.id)"] = revision(finding.note) }
        return state
    }

    @Test func anAppAndItsExtensionKilledAtRandomLoseNothingAndTheServerNeverRefusesAFinding() async throws {
        let directory = try TemporaryDirectory()
        let device = directory.url.appending(path: "device")
        let remote = directory.url.appending(path: "remote")
        for folder in [device, remote] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        var random = SeededRandomNumberGenerator(seed: 2_712)
        var acknowledged: [String: Int?] = [:]
        // The app's inspections count from 1, the extension's findings from a million.
        var next = [1, 1_000_000]
        var pendingFound = 0
        var syncsInChildren = 0
        let roles = ["app", "extension"]
        for round in 0..<ChildProcess.killCount {
            var children: [ChildProcess] = []
            for process in 0..<2 {
                children.append(
                    try ChildProcess([
                        "sync-group-sqlite", device.path, remote.path, String(next[process]),
                        String(round * 2 + process + 1), roles[process],
                    ]))
            }
            for child in children { try await child.waitForLine("ready") }
            let order = Bool.random(using: &random) ? [0, 1] : [1, 0]
            var said = [Transcript([]), Transcript([])]
            for process in order {
                try await Task.sleep(for: .milliseconds(Int.random(in: 5...250, using: &random)))
                said[process] = Transcript(await children[process].kill())
            }
            var inFlight: [String: Int?] = [:]
            for process in 0..<2 {
                acknowledged.merge(said[process].acknowledged) { _, new in new }
                inFlight.merge(said[process].inFlight) { _, new in new }
                next[process] = max(next[process], said[process].highestID + 1)
                syncsInChildren += said[process].synced
                #expect(
                    said[process].rejected.isEmpty,
                    "round \(round): \(roles[process])'s sync: \(said[process].rejected)")
            }

            let serverInspections = try await SQLiteRepository<Inspection>(
                fileURL: remote.appending(path: "inspections.sqlite"))
            let serverFindings = try await SQLiteRepository<Finding>(
                fileURL: remote.appending(path: "findings.sqlite"))
            let server = InspectionServer(inspections: serverInspections, findings: serverFindings)
            let file = device.appending(path: "device.sqlite")
            let group = SyncGroup(fileURL: file)
            let inspectionTable = try await SQLiteRepository<Inspection>(fileURL: file)
            let findingTable = try await SQLiteRepository<Finding>(fileURL: file)
            let inspections = try await server.inspections.offlineFirst(
                local: inspectionTable, group: group, conflicts: .lastWriterWins, automaticSync: nil)
            let findings = try await server.findings.offlineFirst(
                local: findingTable, group: group, conflicts: .lastWriterWins,
                dependsOn: Finding.dependencies,
                automaticSync: nil)

            // Before any sync: nothing split, nothing lost, nothing refused.
            let pendingInspections = try await inspections.outbox.changes()
            let pendingFindings = try await findings.outbox.changes()
            pendingFound += pendingInspections.count + pendingFindings.count
            let inspectionRows = try await inspectionTable.fetchAll()
            let findingRows = try await findingTable.fetchAll()
            for change in pendingInspections {
                if case .save(let entity) = change.kind {
                    #expect(
                        inspectionRows.contains(entity), "round \(round): I\(change.id) and its row split")
                } else {
                    #expect(
                        !inspectionRows.contains { $0.id == change.id }, "round \(round): I\(change.id) split"
                    )
                }
            }
            for change in pendingFindings {
                if case .save(let entity) = change.kind {
                    #expect(findingRows.contains(entity), "round \(round): F\(change.id) and its row split")
                } else {
                    #expect(
                        !findingRows.contains { $0.id == change.id }, "round \(round): F\(change.id) split")
                }
            }
            let refused =
                (pendingInspections.filter(\.isRejected).map { "I\($0.id): \($0.lastError?.reason ?? "")" })
                + pendingFindings.filter(\.isRejected).map { "F\($0.id): \($0.lastError?.reason ?? "")" }
            #expect(refused.isEmpty, "round \(round): the server refused \(refused)")
            let here = Self.state(inspections: inspectionRows, findings: findingRows)
            for (key, state) in acknowledged {
                let allowed: [Int?] = [state] + (inFlight[key].map { [$0] } ?? [])
                #expect(
                    allowed.contains(here[key]),
                    "round \(round): \(key) holds \(String(describing: here[key])), acknowledged \(String(describing: state))"
                )
            }

            let report = try await group.sync()
            #expect(report.rejections.isEmpty, "round \(round): \(report.rejections)")
            #expect(
                server.orphansRefused.isEmpty, "round \(round): findings refused for want of their inspection"
            )
            #expect(try await inspections.outbox.changes().isEmpty, "round \(round): inspections pending")
            #expect(try await findings.outbox.changes().isEmpty, "round \(round): findings pending")
            let settled = Self.state(
                inspections: try await inspectionTable.fetchAll(), findings: try await findingTable.fetchAll()
            )
            for key in inFlight.keys { acknowledged.updateValue(settled[key], forKey: key) }
            let stored = Self.state(
                inspections: try await server.inspections.fetchAll(),
                findings: try await server.findings.fetchAll())
            for (key, state) in acknowledged {
                #expect(
                    stored[key] == state,
                    "round \(round): the server holds \(key) as \(String(describing: stored[key])), acknowledged \(String(describing: state))"
                )
            }
            #expect(settled == stored, "round \(round): the device and the server differ")
            let orphans = try await server.findings.fetchAll().filter { finding in
                stored["I\(finding.inspectionID)"] == nil
            }
            #expect(orphans.isEmpty, "round \(round): the server holds findings without their inspection")
            try await findings.outbox.close()
            try await inspections.outbox.close()
            try await findingTable.close()
            try await inspectionTable.close()
            try await serverFindings.close()
            try await serverInspections.close()
        }
        #expect(acknowledged.keys.contains { $0.hasPrefix("I") }, "the app made inspections")
        #expect(
            acknowledged.keys.contains { $0.hasPrefix("F1") && $0.count >= 8 }, "the extension added findings"
        )
        #expect(pendingFound > 0, "kills left changes pending, which the checks compared")
        #expect(syncsInChildren > 0, "the processes synced while both ran")
    }
}
