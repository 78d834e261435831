import ExampleSupport
import Foundation
import Repositories
import RepositoriesTestSupport
import Testing

@testable import Inspections

/// The Inspections story, told online and offline with its share extension a real second
/// process (the example's executable, built beside this test): the API never refuses a
/// finding for want of its inspection, the held finding goes once its inspection is fixed,
/// and the device and the API agree.
@MainActor @Suite(.timeLimit(.minutes(30))) struct InspectionsStoryTests {
    /// The example's executable beside the test binary (`swift build` puts products side by side).
    static func executable() throws -> URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<5 {
            let candidate = directory.appending(path: "Inspections")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        throw StoryFailure("the Inspections executable is not built beside the tests: run swift build first")
    }

    @Test(arguments: [false, true]) func theWholeStoryHoldsOnlineAndOffline(offline: Bool) async throws {
        var options = ExampleOptions()
        options.offline = offline
        let workspace = try ExampleWorkspace(options: options, example: "InspectionsTests")
        try await withCleanup {
            let story = try await InspectionsStory(
                options: options, workspace: workspace, extensionExecutable: try Self.executable(),
                startProcess: { try $0.runAlone() })
            try await withCleanup {
                try await story.tell()
                #expect(story.api.orphansRefused == 0)
                #expect(try await story.api.findingStore.fetchAll().count == 4)
                #expect(try await story.device.findings.outbox.changes().isEmpty)
                #expect(try await story.device.inspections.outbox.changes().isEmpty)
                // The finding the share extension saved in its own process went after its inspection.
                let log = story.api.log
                let inspection = try #require(log.firstIndex { $0.hasPrefix("POST /inspections [1]: 200") })
                let finding = try #require(log.firstIndex { $0.contains("103") && $0.hasSuffix(": 200") })
                #expect(inspection < finding)
            } cleanup: {
                try await story.close()
            }
        } cleanup: {
            try workspace.close()
        }
    }

    @Test func theAPIRefusesAFindingWhoseInspectionItLacksAndABlankSite() async throws {
        let api = InspectionsAPI(online: true)
        await #expect {
            try await api.findings.save(Finding(id: 1, inspectionID: 9, note: "orphan"))
        } throws: { error in
            (error as? RepositoryError)?.fieldErrors["inspectionID"] == ["no such inspection"]
        }
        await #expect {
            try await api.inspections.save(Inspection(id: 9, site: ""))
        } throws: { error in
            (error as? RepositoryError)?.httpStatus == 422
        }
        try await api.inspections.save(Inspection(id: 9, site: "Dock"))
        try await api.findings.save(Finding(id: 1, inspectionID: 9, note: "fine"))
        #expect(api.orphansRefused == 1)
        #expect(try await api.findingStore.fetchAll().count == 1)
    }

    @Test func aSecondRunOnTheSameDataDirectoryIsRefused() async throws {
        var options = ExampleOptions()
        let workspace = try ExampleWorkspace(options: options, example: "InspectionsTests")
        options.dataDirectory = workspace.directory
        #expect(
            FileManager.default.createFile(
                atPath: workspace.file("inspections.sqlite").path, contents: Data()))
        await #expect(throws: ExampleUsageError.self) {
            _ = try await InspectionsStory(
                options: options, workspace: workspace, extensionExecutable: try Self.executable())
        }
        try workspace.close()
    }
}
