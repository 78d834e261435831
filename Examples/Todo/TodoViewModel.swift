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
/// the message.
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

    /// Loads the todos ``filter`` selects, with the filter's query.
    func fetchTodo() async {
        do {
            fetchedTodos = try await repository.fetch(filter.query)
            errorMessage = nil
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
        let todo = Todo(todo: text, date: now())
        let saved = await perform("add \"\(text)\"") {
            try await repository.save(todo)
        } update: { todos in
            todos + [todo]
        }
        return saved ? todo : nil
    }

    /// Marks `todo` done, or open again.
    func toggleTodo(_ todo: Todo) async {
        var changed = todo
        changed.isDone.toggle()
        await replace(
            todo, with: changed, action: "mark \"\(todo.todo)\" \(changed.isDone ? "done" : "open")")
    }

    /// Gives `todo` a new text (the article's `editTodo(oldTodo:newTodo:)`).
    func renameTodo(_ todo: Todo, to text: String) async {
        var changed = todo
        changed.todo = text
        await replace(todo, with: changed, action: "rename \"\(todo.todo)\"")
    }

    /// Deletes `todo` from the store and the list.
    func deleteTodo(_ todo: Todo) async {
        await perform("delete \"\(todo.todo)\"") {
            try await repository.delete(id: todo.id)
        } update: { todos in
            todos.filter { $0.id != todo.id }
        }
    }

    private func replace(_ todo: Todo, with changed: Todo, action: String) async {
        await perform(action) {
            try await repository.save(changed)
        } update: { todos in
            todos.map { $0.id == todo.id ? changed : $0 }
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
