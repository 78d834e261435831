import ExampleSupport
import Foundation
import Repositories
import Testing

@testable import Meteorite

/// The story checks what it claims, and generates the data set only for the simulated API.
@MainActor @Suite struct MeteoriteStoryTests {
    private let workspace: ExampleWorkspace
    private let meteorites = MeteoriteGenerator(seed: 5).generate(count: 3_000, withoutLocation: 480)

    init() throws {
        workspace = try ExampleWorkspace(options: ExampleOptions(), example: "MeteoriteTests")
    }

    private func withStory(
        _ options: ExampleOptions = ExampleOptions(), dataSet: () -> [Meteorite],
        body: (MeteoriteStory) async throws -> Void
    ) async throws {
        try await withCleanup {
            let story = try await MeteoriteStory(options: options, workspace: workspace, dataSet: dataSet)
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
        var options = ExampleOptions()
        options.offline = offline
        try await withStory(
            options, dataSet: { meteorites },
            body: { story in
                try await story.tell()
                #expect(story.mirrorFailures.all.isEmpty)
                #expect(try await story.database.count() == (offline ? 0 : 3_000))
            })
    }

    @Test func theSimulatedAPIIsFilledWithTheDataSet() async throws {
        var calls = 0
        try await withStory(
            dataSet: {
                calls += 1
                return meteorites
            },
            body: { story in
                let held = try await story.remote.server?.count()
                #expect(held == 3_000)
            })
        #expect(calls == 1)
    }

    @Test func underAPINoDataSetIsGenerated() async throws {
        var options = ExampleOptions()
        options.apiURL = URL(string: "http://127.0.0.1:9")
        var calls = 0
        try await withStory(
            options,
            dataSet: {
                calls += 1
                return meteorites
            },
            body: { story in
                let server = story.remote.server
                #expect(server == nil)
            })
        #expect(calls == 0)
    }

    @Test func anOnlineFetchThatAlertsStopsTheStory() async throws {
        try await withStory(
            dataSet: { meteorites },
            body: { story in
                story.remote.network.goOffline()  // and the database is empty: the alert shows
                let viewModel = MeteoriteViewModel(dataRepo: story.dataRepo)
                let error = await #expect(throws: StoryFailure.self) {
                    try await story.fetchOnline(viewModel)
                }
                #expect(error?.description.contains("initFetch() failed while the API was online") == true)
            })
    }

    @Test func aDatabaseThatCannotMirrorStopsTheStory() async throws {
        try await withStory(
            dataSet: { meteorites },
            body: { story in
                try await story.database.close()
                let viewModel = MeteoriteViewModel(dataRepo: story.dataRepo)
                let error = await #expect(throws: StoryFailure.self) {
                    try await story.fetchOnline(viewModel)
                }
                #expect(error?.description.contains("meteorites.sqlite") == true)
                #expect(viewModel.alertMessage == nil)
            })
    }
}
