import ExampleSupport
import Foundation
import Repositories
import Testing

@testable import SyncServer

/// The story tells what happened, checked: the server applied each change once, a lost
/// answer's resend was answered from its key, and the devices end where the server is. It
/// stops with a `StoryFailure` instead of printing a convergence that did not happen, and
/// refuses the options it cannot honour.
@MainActor @Suite struct SyncServerStoryTests {
    private let workspace: ExampleWorkspace

    init() throws {
        workspace = try ExampleWorkspace(options: ExampleOptions(), example: "SyncServerTests")
    }

    private func withStory(
        offline: Bool = false, _ body: (SyncServerStory) async throws -> Void
    ) async throws {
        var options = ExampleOptions()
        options.offline = offline
        try await withCleanup {
            let story = try await SyncServerStory(options: options, workspace: workspace)
            try await withCleanup {
                try await body(story)
            } cleanup: {
                try await story.close()
            }
        } cleanup: {
            try workspace.close()
        }
    }

    @Test(arguments: [false, true]) func theWholeStoryHoldsOnlineAndOffline(offline: Bool) async throws {
        try await withStory(offline: offline) { story in
            try await story.tell()

            #expect(try await story.store.fetchAll().sorted { $0.id < $1.id } == Note.withTheShare)
            for device in [story.phone, story.tablet] {
                #expect(try await device.local.fetchAll().sorted { $0.id < $1.id } == Note.withTheShare)
                #expect(try await device.outbox.changes().isEmpty)
                #expect(FileManager.default.fileExists(atPath: device.cursorFile.path))
            }
            // The phone's 3 notes, the tablet's edit, delete and new note, the share extension's
            // note: each applied once, and the one resend answered from its key.
            let applications = story.store.applications
            let applied = applications.filter { !$0.replayed }
            #expect(applied.count == 7)
            #expect(Set(applied.map(\.key)).count == 7)
            let resent = applications.filter(\.replayed)
            #expect(resent.count == 1)
            #expect(applied.contains { $0.key == resent.first?.key })
            #expect(story.network.lost == ["PUT /notes/2"])
            #expect(story.network.replayed == story.network.lost)
        }
    }

    @Test func aDeviceThatDiffersFromTheServerStopsTheCheck() async throws {
        try await withStory { story in
            try await story.phone.notes.save(contentsOf: Note.written)
            _ = try await story.phone.notes.sync()
            _ = try await story.tablet.notes.sync()
            try await story.verifyConverged(Note.written)

            try await story.tablet.local.delete(id: 1)
            let failure = await #expect(throws: StoryFailure.self) {
                try await story.verifyConverged(Note.written)
            }
            #expect(failure?.description.hasPrefix("tablet holds") == true)
        }
    }

    @Test func aChangeStillWaitingStopsTheCheck() async throws {
        try await withStory { story in
            try await story.phone.notes.save(contentsOf: Note.written)
            _ = try await story.phone.notes.sync()
            _ = try await story.tablet.notes.sync()
            story.network.goOffline()
            // Saves the title note 1 already has: the notes stay equal, and a change waits.
            try await story.phone.notes.save(Note.written[0])
            let failure = await #expect(throws: StoryFailure.self) {
                try await story.verifyConverged(Note.written)
            }
            #expect(failure?.description == "phone's outbox still holds 1 change")
        }
    }

    @Test func theStoryIsItsOwnServerAndRefusesAnAPI() async throws {
        var options = ExampleOptions()
        options.apiURL = URL(string: "https://api.example.com")
        let error = await #expect(throws: ExampleUsageError.self) {
            _ = try await SyncServerStory(options: options, workspace: workspace)
        }
        #expect(
            error?.message.hasPrefix("--api https://api.example.com: SyncServer is its own server") == true)
        try workspace.close()
    }

    @Test func aDataDirectoryHoldingAnEarlierRunIsRefused() async throws {
        let phone = workspace.directory.appendingPathComponent("phone", isDirectory: true)
        try FileManager.default.createDirectory(at: phone, withIntermediateDirectories: true)
        try Data().write(to: phone.appendingPathComponent("notes.sqlite"))
        let error = await #expect(throws: ExampleUsageError.self) {
            _ = try await SyncServerStory(options: ExampleOptions(), workspace: workspace)
        }
        #expect(error?.message.contains("holds the phone of an earlier run") == true)
        try workspace.close()
    }
}
