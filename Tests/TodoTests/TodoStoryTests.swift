import ExampleSupport
import Foundation
import Repositories
import RepositoriesTestSupport
import Testing

@testable import Todo

/// The story checks what it claims: it stops with a `StoryFailure` instead of printing a
/// sync that did not happen.
@MainActor @Suite struct TodoStoryTests {
    private let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// The story over a simulated API holding `seed` (the run's own seed by default).
    private func makeStory(offline: Bool = false, seed: [Todo] = TodoStory.apiSeed) -> TodoStory {
        var options = ExampleOptions()
        options.offline = offline
        return TodoStory(
            remote: ExampleRemote(
                options: options, resource: "todos", seed: seed, latency: .zero),
            directory: directory.url, place: "a test directory")
    }

    @Test(arguments: [false, true]) func theWholeStoryHoldsOnlineAndOffline(offline: Bool) async throws {
        let story = makeStory(offline: offline)
        try await story.tell()

        let onAPI = try await #require(story.remote.server).fetch(TodoFilter.all.query)
        #expect(
            onAPI.map(\.line) == [
                "[x] Renew the passport", "[ ] Book the dentist", "[x] Buy milk",
                "[ ] Write the quarterly report",
                "[ ] Water the plants",
            ])
        let files = try await DeviceFiles<Todo>(
            in: directory.url, name: "todos", migrations: try Todo.migrations())
        #expect(try await files.outbox.changes().isEmpty)
        #expect(try await files.local.fetch(TodoFilter.all.query) == onAPI)
        try await files.close()
    }

    @Test func aTodoTheAPILacksStopsTheSyncCheck() async throws {
        let story = makeStory(seed: [])
        let device = try await TodoDevice(in: directory.url, api: story.remote.repository)
        try await device.files.local.save(Todo(title: "past the outbox", date: Date()))

        let failure = await #expect(throws: StoryFailure.self) { try await story.verifySynced(device) }
        #expect(failure?.description.contains("after the sync the API holds []") == true)
        try await device.close()
    }

    @Test func aChangeStillWaitingStopsTheSyncCheck() async throws {
        let story = makeStory(seed: [])
        let device = try await TodoDevice(in: directory.url, api: story.remote.repository)
        let todo = Todo(title: "on both, still queued", date: Date())
        try await device.todos.save(todo)
        try await #require(story.remote.server).save(todo)

        let failure = await #expect(throws: StoryFailure.self) { try await story.verifySynced(device) }
        #expect(failure?.description.contains("todos.outbox still holds 1 change") == true)
        try await device.close()
    }

    @Test func theSyncCheckPassesWhenTheAPIHoldsTheDevicesList() async throws {
        let story = makeStory(seed: [])
        let device = try await TodoDevice(in: directory.url, api: story.remote.repository)
        try await device.todos.save(Todo(title: "synced", date: Date()))
        try await device.todos.sync()

        #expect(try await story.verifySynced(device) == 1)
        try await device.close()
    }
}
