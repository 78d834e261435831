import Foundation
import Repositories
import Testing

@Suite struct SyncConflictTests {
    static let resolutions: [ConflictResolution] = [
        .localKept,
        .remoteKept,
        .customMerge,
        .changeKeptOverDeletion(changedOn: .remote),
        .mergedByField(localFields: ["notes"], remoteFields: ["status"], tiedFields: ["title": .remote]),
        .tieTookLocal,
        .tieTookRemote,
    ]

    @Test(arguments: resolutions)
    func aResolutionReadsBackAsItWasWritten(_ resolution: ConflictResolution) throws {
        let data = try JSONEncoder().encode(resolution)
        #expect(try JSONDecoder().decode(ConflictResolution.self, from: data) == resolution)
    }

    @Test func aConflictReadsBackAsItWasWritten() throws {
        let base = Errand(id: 7)
        let conflict = SyncConflict(
            entityID: 7, base: base, local: base.with(\.notes, "call back"),
            remote: base.with(\.status, "done"),
            result: base.with(\.notes, "call back").with(\.status, "done"),
            resolution: .mergedByField(localFields: ["notes"], remoteFields: ["status"], tiedFields: [:]),
            settledAt: Date(timeIntervalSince1970: 1_700_000_000))
        let deletion = SyncConflict<Errand>(
            entityID: 8, base: Errand(id: 8), local: nil, remote: Errand(id: 8, status: "done"),
            result: nil, resolution: .tieTookLocal)
        for conflict in [conflict, deletion] {
            let data = try JSONEncoder().encode(conflict)
            #expect(try JSONDecoder().decode(SyncConflict<Errand>.self, from: data) == conflict)
        }
        #expect(conflict.id != deletion.id, "each conflict has an identity of its own")
        #expect(conflict.entityID == 7)
    }

    @Test func aResolutionSaysWhatHappenedInOneLine() {
        let merged = ConflictResolution.mergedByField(
            localFields: ["notes"], remoteFields: ["status", "due"], tiedFields: ["title": .remote])
        #expect(
            merged.description
                == "merged field by field: notes from this device; status, due from the remote; "
                + "title changed on both, the remote's kept")
        #expect(
            ConflictResolution.remoteKept.description
                == "the remote's version was kept; this device's change was dropped")
        #expect(
            ConflictResolution.changeKeptOverDeletion(changedOn: .local).description
                == "the remote deleted it; this device's change was kept")
    }

    @Test func aReportSaysWhatASyncDid() {
        let report = SyncReport<Int>(
            sent: 3, confirmed: 2, received: 5, conflictedIDs: [4],
            rejections: [9: RepositoryError.rejected("The title is empty")], requests: 4,
            pullWasIncremental: false, duration: .milliseconds(250))
        #expect(report.rejections[9]?.code == .rejected)
        #expect(
            report.description
                == "sent 3, confirmed 2, received 5 (full pull), 1 conflict, 1 rejected, 4 requests, 0.25 s")
        #expect(
            SyncReport<Int>().description
                == "sent 0, confirmed 0, received 0 (full pull), 0 conflicts, 0 rejected, 0 requests, 0.0 s")
    }
}
