import ExampleSupport
import Foundation
import Repositories

/// The run: a screen adds, toggles, renames and deletes todos through ``TodoViewModel``, lists
/// the open ones with a query, pushes the list to the API, then the store is closed and
/// reopened to show that the todos survived.
@MainActor
struct TodoStory {
    /// The texts the run adds, in order.
    static let texts = ["Buy milk", "Write the report", "Call the plumber", "Water the plants"]

    let remote: ExampleRemote<Todo>
    let journal: URL
    let place: String

    /// Runs the story in the workspace `options` ask for; removes a temporary workspace
    /// afterwards, or keeps it, and says where, when the story fails.
    static func run(options: ExampleOptions) async throws {
        let workspace = try ExampleWorkspace(options: options, example: "Todo")
        let story = TodoStory(
            remote: ExampleRemote(options: options, resource: "todos", seed: []),
            journal: workspace.file("todos.journal"),
            place: workspace.isTemporary ? "a temporary directory" : workspace.directory.path)
        do {
            try await story.tell()
        } catch {
            print("The store is kept for inspection at \(story.journal.path)")
            throw error
        }
        try workspace.close()
        if workspace.isTemporary {
            print("\nRemoved the temporary directory; pass --data-dir PATH to keep todos.journal")
        } else {
            print(
                "\ntodos.journal is kept in \(workspace.directory.path); run again to see the todos reopened")
        }
    }

    private func tell() async throws {
        let network = remote.network.isOnline ? "" : " (offline)"
        print(
            "Todo: todos.journal (a FileRepository) in \(place) holds the list; \(remote.origin)\(network) gets a copy"
        )
        let store = try await FileRepository<Todo>(fileURL: journal)
        let model = TodoViewModel(repository: store)
        await model.fetchTodo()
        try check(model)
        let earlier = model.fetchedTodos.count
        print(
            "Opened todos.journal: \(earlier == 0 ? "no todos yet" : "\(earlier) todos from an earlier run")")

        try await edit(model)
        try await list(model)
        try await sync(store, count: model.fetchedTodos.count)
        try await reopen(store, screen: model)
    }

    private func edit(_ model: TodoViewModel) async throws {
        Console.heading("Adding todos")
        var added: [Todo] = []
        for text in Self.texts {
            guard let todo = await model.addTodo(text) else {
                throw StoryFailure(model.errorMessage ?? "adding reported no error, but added nothing")
            }
            added.append(todo)
            print("+ \(todo.todo)")
        }
        print("\(added.count) todos added, each on disk when its save returned")

        Console.heading("Toggle, rename, delete")
        await model.toggleTodo(added[0])
        try check(model)
        print("done:    \(added[0].todo)")
        await model.editTodo(oldTodo: added[1], newTodo: "Write the quarterly report")
        try check(model)
        print("renamed: \(added[1].todo) -> Write the quarterly report")
        await model.deleteTodo(added[2])
        try check(model)
        print("deleted: \(added[2].todo)")
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

    private func sync(_ store: FileRepository<Todo>, count: Int) async throws {
        Console.heading("Sync to \(remote.origin)")
        do {
            let outcome = try await TodoSync(device: store, api: remote.repository).push()
            var line = "Pushed \(outcome.pushed) todos (\(outcome.removed) deleted there)"
            if let server = remote.server { line += "; the API now holds \(try await server.count())" }
            print(line + " in \(remote.network.requests) requests")
        } catch let error as RepositoryError {
            // A todo app keeps working whatever the API says: the device's list is the truth.
            print(error.code == .unavailable ? "Sync postponed: \(error.reason)" : "Sync failed: \(error)")
            print("The \(count) todos stay in todos.journal; the next sync sends them all")
        }
    }

    private func reopen(_ store: FileRepository<Todo>, screen: TodoViewModel) async throws {
        Console.heading("Closing and reopening todos.journal")
        let shown = screen.fetchedTodos
        try await store.close()
        let swept = await screen.addTodo("Sweep the floor")
        guard swept == nil, let refused = screen.errorMessage else {
            throw StoryFailure("a closed store accepted a save: \"Sweep the floor\" was added")
        }
        print("The old screen's store is closed; adding shows: \(refused)")
        guard screen.fetchedTodos == shown else {
            throw StoryFailure("the refused save changed the old screen's list")
        }
        print("and its list still holds \(screen.fetchedTodos.count) todos")

        let (reopened, opening) = try await Console.timed { try await FileRepository<Todo>(fileURL: journal) }
        let model = TodoViewModel(repository: reopened)
        await model.fetchTodo()
        try check(model)
        guard model.fetchedTodos == shown else {
            throw StoryFailure(
                "reopened todos.journal holds \(model.fetchedTodos.map(\.line)), "
                    + "but the screen showed \(shown.map(\.line)) before closing")
        }
        print("Reopened in \(Console.format(opening)): \(model.fetchedTodos.count) todos survived")
        for todo in model.fetchedTodos { print(todo.line) }
        try await reopened.close()
    }

    /// Stops the story when the view model reports an error it should not have.
    private func check(_ model: TodoViewModel) throws {
        if let message = model.errorMessage { throw StoryFailure(message) }
    }
}
