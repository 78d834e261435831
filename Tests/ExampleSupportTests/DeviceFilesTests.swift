import ExampleSupport
import Foundation
import Repositories
import RepositoriesTesting
import Testing

private func item(_ index: Int) -> ConformanceEntity { .make(index: index, revision: 0) }

/// A device's journal and outbox, the offline-first stack over them, and its snapshot.
@Suite struct DeviceFilesTests {
    private let workspace: ExampleWorkspace

    init() throws {
        workspace = try ExampleWorkspace(options: ExampleOptions(), example: "DeviceFilesTests")
    }

    @Test func opensBothFilesInASubdirectoryItCreates() async throws {
        let directory = workspace.file("phone")
        let files = try await DeviceFiles<ConformanceEntity>(in: directory, name: "items")
        #expect(files.localName == "items.journal")
        #expect(files.outboxName == "items.outbox")
        #expect(files.local.fileURL.deletingLastPathComponent().lastPathComponent == "phone")
        try await files.close()
        try workspace.close()
    }

    @Test func anOfflineChangeIsInTheSnapshotAndSurvivesCloseAndReopen() async throws {
        let remote = ExampleRemote<ConformanceEntity>(
            options: ExampleOptions(), resource: "items", seed: [item(1)], latency: .zero)
        remote.network.goOffline()
        let files = try await DeviceFiles<ConformanceEntity>(in: workspace.directory, name: "items")
        let items = remote.repository.offlineFirst(
            local: files.local, outbox: files.outbox, conflicts: .lastWriterWins, automaticSync: nil)

        try await items.save(item(2))
        let snapshot = try await items.snapshot(Query())
        #expect(snapshot.entities.map(\.id) == [2])
        #expect(snapshot.pendingIDs == [2])
        try await files.close()

        let reopened = try await DeviceFiles<ConformanceEntity>(in: workspace.directory, name: "items")
        #expect(try await reopened.outbox.changes().map(\.id) == [2])
        #expect(try await reopened.local.fetchAll().map(\.id) == [2])
        try await reopened.close()
        try workspace.close()
    }

    @Test func whenTheOutboxCannotOpenTheJournalIsClosedAgain() async throws {
        // A directory where the outbox's file should be: the outbox cannot open it.
        try FileManager.default.createDirectory(
            at: workspace.file("items.outbox"), withIntermediateDirectories: true)
        await #expect(throws: (any Error).self) {
            try await DeviceFiles<ConformanceEntity>(in: workspace.directory, name: "items")
        }
        // Closed again: a second opener is not refused with `locked`.
        let journal = try await FileRepository<ConformanceEntity>(fileURL: workspace.file("items.journal"))
        try await journal.close()
        try workspace.close()
    }

    @Test func theDirectRemoteIgnoresTheSwitch() async throws {
        let remote = ExampleRemote<ConformanceEntity>(
            options: ExampleOptions(), resource: "items", seed: [item(1)], latency: .zero)
        remote.network.goOffline()
        #expect(try await remote.direct.fetchAll().map(\.id) == [1])
        #expect(remote.network.refused == 0)
    }
}
