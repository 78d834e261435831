import ExampleSupport
import Foundation
import Repositories

/// The run: the first launch of version 2 opens the `todos.journal` the previous release
/// (``TodoV1``) left and upgrades its todos, once; a screen adds todos through
/// ``TodoViewModel`` and they are synced; the network drops and the screen toggles, renames
/// and deletes, each change waiting in the outbox; the app restarts (the files closed and
/// opened again, nothing left to upgrade) with the changes still waiting; the network
/// returns and one sync brings them to the API. Each claim is checked before it is printed.
@MainActor
struct TodoStory {
    /// The texts the run adds, in order.
    static let texts = ["Buy milk", "Write the report", "Call the plumber", "Water the plants"]

    /// What the previous release (version 1 of the entity) left in `todos.journal`, every
    /// todo synced: the API holds them too (``apiSeed``).
    static let previousRelease = [
        TodoV1(
            id: previousID(1), todo: "Renew the passport", date: Date(timeIntervalSince1970: 1_700_000_000),
            isDone: true),
        TodoV1(
            id: previousID(2), todo: "Book the dentist", date: Date(timeIntervalSince1970: 1_700_003_600),
            isDone: false),
    ]

    /// What the simulated API holds at start: the previous release's todos, as it keeps
    /// them today.
    static var apiSeed: [Todo] { previousRelease.map(Todo.init(upgrading:)) }

    private static func previousID(_ number: UInt8) -> UUID {
        UUID(uuid: (0x5E, 0x1E, 0xA5, 0xE1, 0, 0, 0x40, 0, 0x80, 0, 0, 0, 0, 0, 0, number))
    }

    /// The simulated API (or `--api URL`), behind its network switch.
    let remote: ExampleRemote<Todo>
    /// Where the device keeps its files.
    let directory: URL
    /// The directory, as the output names it.
    let place: String

    /// Runs the story in the workspace `options` ask for; removes a temporary workspace
    /// afterwards, or keeps it, and says where, when the story fails.
    static func run(options: ExampleOptions) async throws {
        let workspace = try ExampleWorkspace(options: options, example: "Todo")
        let story = TodoStory(
            remote: ExampleRemote(options: options, resource: "todos", seed: Self.apiSeed),
            directory: workspace.directory,
            place: workspace.isTemporary ? "a temporary directory" : workspace.directory.path)
        do {
            try await story.tell()
        } catch {
            print("The files are kept for inspection in \(story.directory.path)")
            throw error
        }
        try workspace.close()
        if workspace.isTemporary {
            print(
                "\nRemoved the temporary directory; pass --data-dir PATH to keep todos.journal and todos.outbox"
            )
        } else {
            print(
                "\ntodos.journal and todos.outbox are kept in \(workspace.directory.path); run again to see them reopened"
            )
        }
    }

    /// Prints the whole story.
    func tell() async throws {
        let network = remote.network.isOnline ? "" : " (offline)"
        print(
            "Todo: todos.journal holds the list and todos.outbox the changes not sent yet, in \(place); "
                + "\(remote.origin)\(network) is where they go")
        let device = try await firstLaunchOfVersionTwo()
        let model = TodoViewModel(repository: device.todos)
        try await launch(device, model)
        let added = try await add(device, model)
        let names = Dictionary(uniqueKeysWithValues: added.map { ($0.id, $0.title) })
        try await editOffline(device, model, added, names: names)
        try await list(model)
        let reopened = try await restart(device, screen: model, names: names)
        try await syncWhenTheNetworkReturns(reopened.device, reopened.model)
        try await reopened.device.close()
    }

    /// On a first launch (no `todos.journal` yet) writes the file the previous release left,
    /// with its own entity, ``TodoV1``; then opens the device with ``Todo/migrations()``,
    /// which upgrades every todo of version 1 and writes the file back at version 2, once.
    ///
    /// - Returns: the opened device.
    /// - Throws: ``StoryFailure`` when a todo the previous release left is missing or was
    ///   upgraded otherwise than the chain says.
    private func firstLaunchOfVersionTwo() async throws -> TodoDevice {
        Console.heading("First launch of version 2: what the previous release left")
        let journal = directory.appending(path: "todos.journal")
        let before: [TodoV1]
        if FileManager.default.fileExists(atPath: journal.path) {
            before = []
        } else {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let previous = try await FileRepository<TodoV1>(fileURL: journal)
            try await previous.save(contentsOf: Self.previousRelease)
            try await previous.close()
            before = Self.previousRelease
            print(
                "The previous release (Todo version 1) left todos.journal with \(Console.counted(before.count, "todo")): "
                    + before.map(\.line).joined(separator: ", "))
        }
        let (device, opening) = try await Console.timed {
            try await TodoDevice(in: directory, api: remote.repository)
        }
        let upgraded = device.upgradedCount
        guard upgraded == before.count || before.isEmpty else {
            throw StoryFailure(
                "opening upgraded \(upgraded) todos, but the previous release left \(before.count)")
        }
        for old in before {
            let new = try await device.files.local.fetch(id: old.id)
            guard new == Todo(upgrading: old) else {
                throw StoryFailure(
                    "\"\(old.todo)\" of version 1 reads as \(new.map { "\($0)" } ?? "nothing"), not as the upgrade says"
                )
            }
        }
        guard upgraded > 0, let first = before.first else {
            print("Opened todos.journal with Todo.migrations(): already at version 2, nothing to upgrade")
            return device
        }
        print(
            "Opened it with Todo.migrations() in \(Console.format(opening)): "
                + "\(Console.counted(upgraded, "todo")) upgraded from version 1 to 2, written back once")
        print("  before (version 1): todo: \"\(first.todo)\", isDone: \(first.isDone)")
        let after = Todo(upgrading: first)
        print(
            "  after  (version 2): title: \"\(after.title)\", isDone: \(after.isDone), pinned: \(after.pinned)"
        )
        return device
    }

    /// Opens the device's files and syncs, as an app does at launch.
    private func launch(_ device: TodoDevice, _ model: TodoViewModel) async throws {
        Console.heading("Launch")
        await model.fetchTodo()
        try check(model)
        let earlier = model.fetchedTodos.count
        let waiting = try await device.files.outbox.changes().count
        print(
            "Opened todos.journal and todos.outbox: "
                + (earlier == 0 ? "no todos yet" : "\(Console.counted(earlier, "todo")) from an earlier run")
                + ", \(Console.changesWaiting(waiting))")
        guard try await sync(device, model) else { return }
        let count = try await verifySynced(device)
        var line =
            "Synced with \(remote.origin): it holds \(Console.counted(count, "todo")), and so does this device"
        if earlier > count, remote.server != nil { line += " (the simulated API starts empty on every run)" }
        print(line)
    }

    /// Adds the todos, then syncs them when the network is there.
    private func add(_ device: TodoDevice, _ model: TodoViewModel) async throws -> [Todo] {
        Console.heading("Adding todos")
        var added: [Todo] = []
        for text in Self.texts {
            guard let todo = await model.addTodo(text) else {
                throw StoryFailure(model.errorMessage ?? "adding reported no error, but added nothing")
            }
            added.append(todo)
            print("+ \(todo.title)")
        }
        let waiting = try await device.files.outbox.changes().count
        print(
            "\(Console.counted(added.count, "todo")) added, each on disk when its save returned; \(Console.changesWaiting(waiting))"
        )
        if try await sync(device, model) {
            let count = try await verifySynced(device)
            print(
                "Synced: the API holds \(Console.counted(count, "todo")), the same as this device; no changes waiting"
            )
        }
        return added
    }

    /// With the network off: toggles, renames and deletes. Each change returns at once and
    /// waits in the outbox; a sync is postponed, and the API still has what it had.
    ///
    /// - Throws: ``StoryFailure`` when a change failed, the outbox does not hold the changes
    ///   made, or the API changed.
    private func editOffline(
        _ device: TodoDevice, _ model: TodoViewModel, _ added: [Todo], names: [UUID: String]
    ) async throws {
        Console.heading("Offline: toggle, rename, delete")
        if remote.network.isOnline {
            remote.network.goOffline()
            print("The network drops.")
        } else {
            print("The network is still off.")
        }
        let onAPI = try await remote.direct.fetchAll()
        await model.toggleTodo(added[0])
        try check(model)
        print("done:    \(added[0].title)")
        await model.editTodo(oldTodo: added[1], newTodo: "Write the quarterly report")
        try check(model)
        print("renamed: \(added[1].title) -> Write the quarterly report")
        await model.deleteTodo(added[2])
        try check(model)
        print("deleted: \(added[2].title)")

        let waiting = try await device.files.outbox.changes()
        let edited = Set(added.prefix(3).map(\.id))
        guard edited.isSubset(of: Set(waiting.map(\.id))) else {
            throw StoryFailure("todos.outbox lacks a change made offline: it holds \(waiting.count) changes")
        }
        print("\(Console.changesWaiting(waiting.count)) in todos.outbox:")
        for change in waiting { print("  " + describe(change, names: names)) }
        guard !(try await sync(device, model)) else {
            throw StoryFailure("a sync went through with the network off")
        }
        guard try await Set(remote.direct.fetchAll()) == Set(onAPI) else {
            throw StoryFailure("the API changed while the network was off")
        }
        print("The API still has what it had: \(Console.counted(onAPI.count, "todo"))")
    }

    private func list(_ model: TodoViewModel) async throws {
        Console.heading("The list, oldest first")
        for todo in model.fetchedTodos { print(todo.line) }
        let total = model.fetchedTodos.count

        Console.heading("Open todos (Query: not done, sorted by date)")
        await model.select(.open)
        try check(model)
        for todo in model.fetchedTodos { print(todo.line) }
        print("\(model.fetchedTodos.count) open of \(total)")
        await model.select(.all)
        try check(model)
    }

    /// Closes the device's files, shows that the old screen's store refuses a save, and
    /// opens the files again: the list and the waiting changes are as they were.
    ///
    /// - Returns: the reopened device and a new screen over it.
    /// - Throws: ``StoryFailure`` when the closed store took a save, or the reopened files
    ///   hold another list or other changes.
    private func restart(
        _ device: TodoDevice, screen: TodoViewModel, names: [UUID: String]
    ) async throws -> (device: TodoDevice, model: TodoViewModel) {
        Console.heading("Restart: closing and reopening todos.journal and todos.outbox")
        let shown = screen.fetchedTodos
        let waiting = try await device.files.outbox.changes()
        try await device.close()
        let swept = await screen.addTodo("Sweep the floor")
        guard swept == nil, let refused = screen.errorMessage else {
            throw StoryFailure("a closed store accepted a save: \"Sweep the floor\" was added")
        }
        print("The old screen's store is closed; adding shows: \(refused)")
        guard screen.fetchedTodos == shown else {
            throw StoryFailure("the refused save changed the old screen's list")
        }
        print("and its list still holds \(Console.counted(screen.fetchedTodos.count, "todo"))")

        let (reopened, opening) = try await Console.timed {
            try await TodoDevice(in: directory, api: remote.repository)
        }
        let model = TodoViewModel(repository: reopened.todos)
        await model.fetchTodo()
        try check(model)
        guard model.fetchedTodos == shown else {
            throw StoryFailure(
                "reopened todos.journal holds \(model.fetchedTodos.map(\.line)), "
                    + "but the screen showed \(shown.map(\.line)) before closing")
        }
        let stillWaiting = try await reopened.files.outbox.changes()
        guard stillWaiting.map(\.id) == waiting.map(\.id) else {
            throw StoryFailure(
                "reopened todos.outbox holds \(stillWaiting.count) changes, not the \(waiting.count) made before"
            )
        }
        print(
            "Reopened in \(Console.format(opening)): \(Console.counted(model.fetchedTodos.count, "todo")) survived, "
                + "and so did the \(Console.changesWaiting(stillWaiting.count))")
        guard reopened.upgradedCount == 0 else {
            throw StoryFailure(
                "reopening upgraded \(reopened.upgradedCount) todos again; the first launch wrote them back")
        }
        print("Nothing to upgrade this time: the first launch wrote todos.journal back at version 2")
        for todo in model.fetchedTodos { print(todo.line) }
        return (reopened, model)
    }

    /// Brings the network back and syncs once: the changes made offline, kept across the
    /// restart, reach the API.
    ///
    /// - Throws: ``StoryFailure`` when the sync fails, the API does not hold this device's
    ///   list, or a change still waits.
    private func syncWhenTheNetworkReturns(_ device: TodoDevice, _ model: TodoViewModel) async throws {
        Console.heading("The network is back: sync()")
        remote.network.goOnline()
        let waiting = try await device.files.outbox.changes().count
        guard try await sync(device, model) else {
            throw StoryFailure("the sync failed with the network back")
        }
        let count = try await verifySynced(device)
        guard model.fetchedTodos.count == count else {
            throw StoryFailure(
                "the screen shows \(model.fetchedTodos.count) todos after the sync, the API \(count)")
        }
        print(
            "Sent the \(Console.changesWaiting(waiting)); the API holds \(Console.counted(count, "todo")), "
                + "the same as this device; todos.outbox is empty")
        for todo in try await remote.direct.fetch(TodoFilter.all.query) { print("  API: \(todo.line)") }
    }

    /// Syncs and shows the list again.
    ///
    /// - Returns: `true` when the sync went through; `false`, saying so, when the API cannot
    ///   be reached (the changes stay in the outbox for the next sync).
    /// - Throws: any other error of the sync.
    private func sync(_ device: TodoDevice, _ model: TodoViewModel) async throws -> Bool {
        do {
            try await device.todos.sync()
        } catch let error as RepositoryError where error.code == .unavailable {
            print("Sync postponed: \(error.reason)")
            return false
        }
        await model.fetchTodo()
        try check(model)
        return true
    }

    /// Checks that the API holds exactly this device's todos and nothing waits.
    ///
    /// - Returns: how many todos both hold.
    /// - Throws: ``StoryFailure`` naming the difference.
    func verifySynced(_ device: TodoDevice) async throws -> Int {
        let onDevice = try await device.files.local.fetch(TodoFilter.all.query)
        let onAPI = try await remote.direct.fetch(TodoFilter.all.query)
        guard onAPI == onDevice else {
            throw StoryFailure(
                "after the sync the API holds \(onAPI.map(\.line)), but this device \(onDevice.map(\.line))")
        }
        let waiting = try await device.files.outbox.changes()
        guard waiting.isEmpty else {
            throw StoryFailure(
                "after the sync todos.outbox still holds \(Console.counted(waiting.count, "change")): "
                    + waiting.map { "\($0.status)" }.joined(separator: "; "))
        }
        return onAPI.count
    }

    /// A waiting change as a line: `save   [x] Buy milk`, `delete Call the plumber`.
    private func describe(_ change: PendingChange<Todo>, names: [UUID: String]) -> String {
        switch change.kind {
        case .save(let todo): return "save   \(todo.line)"
        case .delete: return "delete \(change.base?.title ?? names[change.id] ?? change.id.uuidString)"
        }
    }

    /// Stops the story when the view model reports an error it should not have.
    private func check(_ model: TodoViewModel) throws {
        if let message = model.errorMessage { throw StoryFailure(message) }
    }
}
