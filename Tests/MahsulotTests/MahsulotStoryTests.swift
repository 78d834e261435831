import ExampleSupport
import Repositories
import Testing

@testable import Mahsulot

/// The story checks what it claims: it stops with a `StoryFailure` instead of printing a
/// success that did not happen.
@MainActor @Suite struct MahsulotStoryTests {
    private let workspace: ExampleWorkspace

    init() throws {
        workspace = try ExampleWorkspace(options: ExampleOptions(), example: "MahsulotTests")
    }

    private func withStory(offline: Bool = false, _ body: (MahsulotStory) async throws -> Void) async throws {
        var options = ExampleOptions()
        options.offline = offline
        try await withCleanup {
            let story = try await MahsulotStory(options: options, workspace: workspace)
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
            #expect(story.mirrorFailures.all.isEmpty)
            #expect(try await story.products.local.fetchAll() == Mahsulot.namunalar)
        }
    }

    @Test func aSaveThatGoesThroughStopsTheStory() async throws {
        try await withStory { story in
            try await story.loadOnline(MahsulotlarViewModel(repository: story.products))
            // The network stays on, so the "offline" save is accepted.
            await #expect(throws: StoryFailure.self) { try await story.saveOffline() }
        }
    }

    @Test func aChangedLocalCopyStopsTheStory() async throws {
        try await withStory { story in
            try await story.loadOnline(MahsulotlarViewModel(repository: story.products))
            var changed = Mahsulot.namunalar[0]
            changed.narxi = 4_500
            try await story.products.local.save(changed)
            await #expect(throws: StoryFailure.self) {
                try await story.verifyNothingHalfWritten(Mahsulot.namunalar[0], localCount: 5, serverCount: 5)
            }
        }
    }

    @Test func anExtraLocalProductStopsTheStory() async throws {
        try await withStory { story in
            try await story.loadOnline(MahsulotlarViewModel(repository: story.products))
            try await story.products.local.save(Mahsulot(id: 6, nomi: "Olma", narxi: 9_000, tavsifi: "1 kg"))
            await #expect(throws: StoryFailure.self) {
                try await story.verifyNothingHalfWritten(Mahsulot.namunalar[0], localCount: 5, serverCount: 5)
            }
        }
    }

    @Test func aChangedServerCopyStopsTheStory() async throws {
        try await withStory { story in
            try await story.loadOnline(MahsulotlarViewModel(repository: story.products))
            var changed = Mahsulot.namunalar[0]
            changed.narxi = 4_500
            try await #require(story.remote.server).save(changed)
            await #expect(throws: StoryFailure.self) {
                try await story.verifyNothingHalfWritten(Mahsulot.namunalar[0], localCount: 5, serverCount: 5)
            }
        }
    }

    @Test func untouchedTiersPassTheCheck() async throws {
        try await withStory { story in
            try await story.loadOnline(MahsulotlarViewModel(repository: story.products))
            try await story.verifyNothingHalfWritten(Mahsulot.namunalar[0], localCount: 5, serverCount: 5)
        }
    }

    @Test func aFileThatCannotMirrorStopsTheStory() async throws {
        try await withStory { story in
            try await story.products.local.close()
            let error = await #expect(throws: StoryFailure.self) {
                try await story.loadOnline(MahsulotlarViewModel(repository: story.products))
            }
            #expect(error?.description.contains("mahsulotlar.journal") == true)
        }
    }
}
