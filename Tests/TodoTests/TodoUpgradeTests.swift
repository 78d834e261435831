import ExampleSupport
import Foundation
import Repositories
import RepositoriesTestSupport
import Testing

@testable import Todo

/// Version 2 of the todo opens what version 1 wrote: `todo` read as `title`, `pinned`
/// added, every todo upgraded once, and a newer file refused by the older release.
@Suite struct TodoUpgradeTests {
    private let directory: TemporaryDirectory
    private let api = SwitchedRepository(
        AnyRepository(InMemoryRepository<Todo>()), network: NetworkSwitch(), name: "The test API")

    init() throws {
        directory = try TemporaryDirectory()
    }

    private var journal: URL { directory.url.appending(path: "todos.journal") }

    /// Writes `todos.journal` as the previous release did: with its own entity, version 1.
    private func writePreviousRelease(_ todos: [TodoV1]) async throws {
        let previous = try await FileRepository<TodoV1>(fileURL: journal)
        try await previous.save(contentsOf: todos)
        try await previous.close()
    }

    @Test func theChainIsVersionTwoAndRenamesTodoToTitleAndAddsPinned() throws {
        #expect(try Todo.migrations().currentVersion == 2)
        let old = TodoV1(id: UUID(), todo: "Buy milk", date: Todo.epoch, isDone: true)
        #expect(Todo(upgrading: old) == Todo(id: old.id, title: "Buy milk", date: Todo.epoch, isDone: true))
        #expect(Todo(upgrading: old).pinned == false)
    }

    @Test func theDeviceUpgradesEveryTodoTheOldReleaseLeftOnce() async throws {
        let old = [
            TodoV1(id: UUID(), todo: "Renew the passport", date: Todo.epoch, isDone: true),
            TodoV1(
                id: UUID(), todo: "Book the dentist ✓", date: Todo.epoch.addingTimeInterval(60), isDone: false
            ),
        ]
        try await writePreviousRelease(old)

        let device = try await TodoDevice(in: directory.url, api: api)
        #expect(device.upgradedCount == 2)
        #expect(try await device.todos.fetchAll() == old.map(Todo.init(upgrading:)))
        try await device.todos.save(
            Todo(title: "Buy milk", date: Todo.epoch.addingTimeInterval(120), pinned: true))
        try await device.close()

        let reopened = try await TodoDevice(in: directory.url, api: api)
        #expect(reopened.upgradedCount == 0, "the first open wrote the upgrade back")
        #expect(
            try await reopened.todos.fetchAll().map(\.line) == [
                "[x] Renew the passport", "[ ] Book the dentist ✓", "[ ] Buy milk (pinned)",
            ])
        try await reopened.close()

        // The previous release, reinstalled, refuses the upgraded file and leaves it whole.
        let before = try Data(contentsOf: journal)
        await #expect {
            _ = try await FileRepository<TodoV1>(fileURL: journal)
        } throws: { error in
            (error as? RepositoryError)?.code == .writtenByNewerVersion
        }
        #expect(try Data(contentsOf: journal) == before)
    }

    @MainActor @Test func theStorysFirstLaunchUpgradesThePreviousReleasesFile() async throws {
        let story = TodoStory(
            remote: ExampleRemote(
                options: ExampleOptions(), resource: "todos", seed: TodoStory.apiSeed, latency: .zero),
            directory: directory.url, place: "a test directory")
        try await story.tell()

        let files = try await DeviceFiles<Todo>(
            in: directory.url, name: "todos", migrations: try Todo.migrations())
        #expect(files.local.upgradedRecordCount == 0)
        let kept = try await files.local.fetch(ids: TodoStory.previousRelease.map(\.id))
        #expect(kept == TodoStory.previousRelease.map(Todo.init(upgrading:)))
        try await files.close()
    }
}
