import Foundation
import Observation
import Repositories

/// The article's `TodoViewModel`: the list a screen shows and the intents that change it.
///
/// It knows the store only as `any Repository<Todo, UUID>` (the article's
/// `TodoRepositoryProtocol`), so the app hands it a `FileRepository` and the tests a spy or an
/// `AnyRepository`, the way the article handed in `MockTodoUserDefaultRepository`.
///
/// Every intent writes first and changes the list only once the write returned: a write that
/// fails sets ``errorMessage`` and leaves the list as it was. An intent that succeeds clears
/// the message. A load cancelled because the screen went away changes nothing.
///
/// The names are the article's where its intents exist: ``fetchTodo()``, ``deleteTodo(_:)``,
/// ``editTodo(oldTodo:newTodo:)``. Its `saveTodos(todos:)` wrote the whole array back after
/// every change; here ``addTodo(_:)`` saves the one new todo, so it is named for what it
/// does, and ``toggleTodo(_:)`` is new (the article had no done flag).
@MainActor @Observable
final class TodoViewModel {
    /// The todos the list shows: those ``filter`` selects, oldest first.
    private(set) var fetchedTodos: [Todo] = []
    /// Which todos the list shows; change it with ``select(_:)``.
    private(set) var filter: TodoFilter = .all
    /// What went wrong with the last intent, for the screen to show; `nil` after a success.
    private(set) var errorMessage: String?

    @ObservationIgnored private let repository: any Repository<Todo, UUID>
    @ObservationIgnored private let now: @Sendable () -> Date

    /// A view model over `repository`; `now` dates new todos (tests pass a fixed clock).
    init(repository: any Repository<Todo, UUID>, now: @escaping @Sendable () -> Date = { Date() }) {
        self.repository = repository
        self.now = now
    }

    /// Loads the todos ``filter`` selects, with the filter's query. A cancelled load (the
    /// task cancelled, whatever the store then threw) changes nothing: nobody is waiting for
    /// its answer or its error.
    func fetchTodo() async {
        do {
            fetchedTodos = try await repository.fetch(filter.query)
            errorMessage = nil
        } catch let error where error is CancellationError || Task.isCancelled {
            // The screen went away; there is nobody to tell.
        } catch {
            errorMessage = "Could not load the todos. \(error)"
        }
    }

    /// Shows the todos `filter` selects.
    func select(_ filter: TodoFilter) async {
        self.filter = filter
        await fetchTodo()
    }

    /// Saves a new open todo and adds it to the list.
    ///
    /// - Returns: the todo, or `nil` when the text is blank or the save failed (see
    ///   ``errorMessage``).
    @discardableResult
    func addTodo(_ text: String) async -> Todo? {
        let text = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else {
            errorMessage = "A todo needs some text."
            return nil
        }
        let todo = Todo(title: text, date: now())
        let saved = await perform("add \"\(text)\"") {
            try await repository.save(todo)
        } update: { todos in
            todos + [todo]
        }
        return saved ? todo : nil
    }

    /// Marks `todo` done, or open again; only the done flag changes, whatever else the
    /// caller's copy of the row says.
    func toggleTodo(_ todo: Todo) async {
        var changed = current(todo)
        changed.isDone.toggle()
        await replace(
            changed, action: "mark \"\(changed.title)\" \(changed.isDone ? "done" : "open")")
    }

    /// Gives `oldTodo` the text `newTodo` (the article's `editTodo(oldTodo:newTodo:)`, which
    /// took a whole new `Todo`; here the ID, date and done flag stay, so the new text is all
    /// there is to give).
    func editTodo(oldTodo: Todo, newTodo: String) async {
        var changed = current(oldTodo)
        let action = "rename \"\(changed.title)\""
        changed.title = newTodo
        await replace(changed, action: action)
    }

    /// Deletes `todo` from the store and the list.
    func deleteTodo(_ todo: Todo) async {
        await perform("delete \"\(todo.title)\"") {
            try await repository.delete(id: todo.id)
        } update: { todos in
            todos.filter { $0.id != todo.id }
        }
    }

    /// The list's copy of `todo`, which holds every change made so far; `todo` itself when
    /// the list does not show it. An intent starts from it, so a row the screen drew before an
    /// earlier change cannot undo that change.
    private func current(_ todo: Todo) -> Todo {
        fetchedTodos.first { $0.id == todo.id } ?? todo
    }

    private func replace(_ changed: Todo, action: String) async {
        await perform(action) {
            try await repository.save(changed)
        } update: { todos in
            todos.map { $0.id == changed.id ? changed : $0 }
        }
    }

    /// Runs `write`; once it returned, shows what `update` makes of the list (filtered and
    /// sorted as ``filter`` says). When it throws, sets ``errorMessage`` and changes nothing.
    @discardableResult
    private func perform(
        _ action: String, write: () async throws -> Void, update: ([Todo]) -> [Todo]
    ) async -> Bool {
        do {
            try await write()
            fetchedTodos = try filter.query.apply(to: update(fetchedTodos))
            errorMessage = nil
            return true
        } catch {
            errorMessage = "Could not \(action). \(error)"
            return false
        }
    }
}
