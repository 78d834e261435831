import Foundation
import Repositories
import RepositoriesTestSupport
import RepositoriesTesting
import Testing

/// The errand as version 1 of the app stored it: before `priority` and `label`.
private struct ErrandV1: Codable, Identifiable, Sendable, Equatable {
    var id: Int
    var title = "Fix the door"
    var notes = ""
    var status = "open"
    var due: Date?
    var place = Errand.Place(room: "Hall", floor: 1)
}

/// Two devices and an app update between them, under each policy (issue 23, finding 6):
/// device A edits offline on version 1 of the app; the app and the server are updated (the
/// server fills the new field with a default of its own, the migration with another);
/// device B edits on the server, another field, the same field, or not at all; then A
/// syncs. No edit is lost without a ``SyncConflict`` that says so, and a field the update
/// added is never taken for a conflict: with no edit from B, A's edit lands under every
/// policy and no conflict is kept.
@Suite struct OfflineFirstAppUpdateTests {
    enum OtherEdit: String, CaseIterable, Sendable {
        case none, anotherField, sameField
    }

    static let policies: [(String, ConflictPolicy<Errand>)] = [
        ("mergeFields", .mergeFields(tie: .remote)),
        ("serverWins", .serverWins),
        ("lastWriterWins", .lastWriterWins),
        (
            "merge",
            .merge { _, local, remote in local.with(\.status, remote.status).with(\.priority, remote.priority)
            }
        ),
    ]

    static let migrations: Migrations<Errand> = {
        do {
            return try Migrations<Errand>(
                .upgrade(from: 1) { (old: ErrandV1) in
                    Errand(
                        id: old.id, title: old.title, notes: old.notes, status: old.status, due: old.due,
                        place: old.place, priority: 0, label: nil)
                })
        } catch {
            preconditionFailure("the errand's migrations are a chain: \(error)")
        }
    }()

    @Test(arguments: policies.indices, OtherEdit.allCases)
    func noEditIsLostWithoutAConflictThatSaysSo(policyIndex: Int, other: OtherEdit) async throws {
        let (name, policy) = Self.policies[policyIndex]
        let directory = try TemporaryDirectory()
        let storeURL = directory.url.appending(path: "errands.store")
        let outboxURL = directory.url.appending(path: "errands.outbox")

        // Version 1: device A brings errand 7 in, edits its notes offline, and quits.
        let serverV1 = HostileRemote<ErrandV1>([ErrandV1(id: 7)])
        let localV1 = try await FileRepository<ErrandV1>(fileURL: storeURL)
        let outboxV1 = try await Outbox<ErrandV1>(fileURL: outboxURL)
        let deviceV1 = serverV1.offlineFirst(
            local: localV1, outbox: outboxV1, conflicts: .serverWins, automaticSync: nil)
        try await deviceV1.sync()
        serverV1.isOnline = false
        var edited = ErrandV1(id: 7)
        edited.notes = "call back"
        try await deviceV1.save(edited)
        try await localV1.close()
        try await outboxV1.close()

        // The update: the server's errands gain `priority`, its default 2; device B edits.
        let server = HostileRemote<Errand>([Errand(id: 7, priority: 2)])
        switch other {
        case .none: break
        case .anotherField: try await server.save(Errand(id: 7, status: "done", priority: 2))
        case .sameField: try await server.save(Errand(id: 7, notes: "bring a ladder", priority: 2))
        }

        // Version 2: device A opens with the migration (its default 0) and syncs.
        let local = try await FileRepository<Errand>(fileURL: storeURL, migrations: Self.migrations)
        let outbox = try await Outbox<Errand>(fileURL: outboxURL, migrations: Self.migrations)
        let device = server.offlineFirst(local: local, outbox: outbox, conflicts: policy, automaticSync: nil)
        try await device.sync()

        let onServer = try #require(try await server.fetch(id: 7))
        #expect(try await device.fetch(id: 7) == onServer, "\(name), \(other): both sides agree")
        #expect(try await outbox.changes().isEmpty)
        let conflicts = try await device.snapshot(Query()).conflicts
        let context = "\(name), B edited \(other): server \(onServer), conflicts \(conflicts)"

        // A's edit is on the server, or a conflict says it was not kept.
        if onServer.notes != "call back" {
            #expect(
                conflicts.contains { $0.local?.notes == "call back" && $0.result?.notes != "call back" },
                "A's edit was lost without a conflict: \(context)")
        }
        // B's edit is on the server, or a conflict says it was not kept.
        let bEdit: (Errand) -> Bool =
            switch other {
            case .none: { _ in true }
            case .anotherField: { $0.status == "done" }
            case .sameField: { $0.notes == "bring a ladder" }
            }
        if !bEdit(onServer) {
            #expect(
                conflicts.contains { $0.remote.map(bEdit) == true && $0.result.map(bEdit) != true },
                "B's edit was lost without a conflict: \(context)")
        }
        if other == .none {
            // The field the update added is no conflict: A's edit lands, the server's value stays.
            #expect(conflicts.isEmpty, "\(context)")
            #expect(onServer == Errand(id: 7, notes: "call back", priority: 2), "\(context)")
        }
        if other == .anotherField {
            #expect(onServer == Errand(id: 7, notes: "call back", status: "done", priority: 2), "\(context)")
        }
        try await local.close()
        try await outbox.close()
    }
}
