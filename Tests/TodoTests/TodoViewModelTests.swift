import Foundation
import Repositories
import RepositoriesTestSupport
import RepositoriesTesting
import Testing

@testable import Todo

/// The view model against doubles, as the article's `Todo_AppTests` did with
/// `MockTodoUserDefaultRepository`: the calls it makes and the list after each intent.
@MainActor
@Suite struct TodoViewModelTests {
    let dates = SteppingDates()

    private func model(over repository: some Repository<Todo, UUID>) -> TodoViewModel {
        TodoViewModel(repository: repository, now: { [dates] in dates.next() })
    }

    private func offline() -> RepositoryError {
        RepositoryError.unavailable("The disk is unplugged (test)")
    }

    // The article's testDefaultTodo.
    @Test func startsEmptyWithoutTouchingTheRepository() {
        let model = model(over: AnyRepository<Todo, UUID>.unimplemented("todos"))
        #expect(model.fetchedTodos.isEmpty)
        #expect(model.errorMessage == nil)
        #expect(model.filter == .all)
    }

    // The article's testGetTodos, with its mock as an AnyRepository.
    @Test func fetchTodoShowsWhatTheRepositoryAnswers() async {
        var todos = AnyRepository<Todo, UUID>.unimplemented("todos")
        todos.onFetchQuery = { query in try query.apply(to: [Todo.mock]) }
        let model = model(over: todos)

        await model.fetchTodo()

        #expect(model.fetchedTodos == [Todo.mock])
        #expect(model.errorMessage == nil)
    }

    @Test func fetchTodoAsksForTheFilterSortedByDate() async throws {
        let spy = SpyRepository(
            InMemoryRepository<Todo>([
                .make(index: 2, text: "later"), .make(index: 1, text: "earlier", isDone: true),
                .make(index: 0, text: "first"),
            ]))
        let model = model(over: spy)

        await model.select(.open)

        #expect(spy.operations == [.fetchQuery])
        #expect(model.filter == .open)
        #expect(model.fetchedTodos.map(\.title) == ["first", "later"])
    }

    @Test func aFailedLoadSetsTheErrorMessage() async {
        var todos = AnyRepository<Todo, UUID>.unimplemented("todos")
        todos.onFetchQuery = { _ in
            throw RepositoryError.decodingFailed(record: "7", underlying: CocoaError(.coderReadCorrupt))
        }
        let model = model(over: todos)

        await model.fetchTodo()

        #expect(model.fetchedTodos.isEmpty)
        #expect(model.errorMessage?.hasPrefix("Could not load the todos. decodingFailed") == true)
    }

    @Test func aCancelledLoadChangesNothing() async {
        let mock1 = Todo.make(index: 1, text: "Mock Todo 1")
        let store = FaultInjectingRepository(InMemoryRepository<Todo>([mock1]))
        let model = model(over: store)
        await model.fetchTodo()
        store.failNext(of: .fetchQuery, with: CancellationError())

        await model.fetchTodo()

        #expect(store.injectedFaultCount == 1)
        #expect(model.errorMessage == nil)
        #expect(model.fetchedTodos == [mock1])
    }

    /// A store may throw its own error when its task is cancelled (a remote-first stack
    /// rethrows the API's): the load is still silent.
    @Test func aLoadWhoseTaskWasCancelledIsSilentWhateverTheStoreThrew() async {
        let gate = Gate()
        let error = offline()
        var todos = AnyRepository<Todo, UUID>.unimplemented("todos")
        todos.onFetchQuery = { _ in
            await gate.pass()
            throw error
        }
        let model = model(over: todos)

        let load = Task { await model.fetchTodo() }
        await gate.waitForArrival()
        load.cancel()
        gate.open()
        await load.value

        #expect(model.errorMessage == nil)
        #expect(model.fetchedTodos.isEmpty)
    }

    // The article's testAddTodo.
    @Test func addTodoSavesThenAppends() async throws {
        let store = InMemoryRepository<Todo>()
        let spy = SpyRepository(store)
        let model = model(over: spy)

        let milk = try #require(await model.addTodo("  Buy milk \n"))
        let bread = try #require(await model.addTodo("Buy bread"))

        #expect(spy.operations == [.save, .save])
        #expect(spy.calls.map(\.entities) == [[milk], [bread]])
        #expect(milk.title == "Buy milk" && !milk.isDone && milk.date < bread.date)
        #expect(model.fetchedTodos == [milk, bread])
        #expect(try await store.fetchAll() == [milk, bread])
        #expect(model.errorMessage == nil)
    }

    @Test func aBlankTodoIsRefusedWithoutAWrite() async {
        let model = model(over: AnyRepository<Todo, UUID>.unimplemented("todos"))

        let added = await model.addTodo("   ")

        #expect(added == nil)
        #expect(model.fetchedTodos.isEmpty)
        #expect(model.errorMessage == "A todo needs some text.")
    }

    @Test func toggleSavesTheDoneFlagAndReplacesInPlace() async throws {
        let spy = SpyRepository(
            InMemoryRepository<Todo>([.make(index: 0, text: "one"), .make(index: 1, text: "two")]))
        let model = model(over: spy)
        await model.fetchTodo()
        spy.reset()

        await model.toggleTodo(model.fetchedTodos[0])

        let done = Todo.make(index: 0, text: "one", isDone: true)
        #expect(spy.operations == [.save])
        #expect(spy.calls[0].entities == [done])
        #expect(model.fetchedTodos == [done, .make(index: 1, text: "two")])

        await model.toggleTodo(done)
        #expect(model.fetchedTodos[0].isDone == false)
    }

    // The article's testEditTodo.
    @Test func renameSavesTheNewText() async throws {
        let mock1 = Todo.make(index: 1, text: "Mock Todo 1")
        let mock2 = Todo.make(index: 2, text: "Mock Todo 2")
        let spy = SpyRepository(InMemoryRepository<Todo>([mock1, mock2]))
        let model = model(over: spy)
        await model.fetchTodo()
        spy.reset()

        await model.editTodo(oldTodo: mock2, newTodo: "Edited Mock Todo 3")

        var edited = mock2
        edited.title = "Edited Mock Todo 3"
        #expect(spy.operations == [.save])
        #expect(spy.calls[0].entities == [edited])
        #expect(model.fetchedTodos == [mock1, edited])
        #expect(try await spy.base.fetchAll() == [mock1, edited])
    }

    // The article's testDeleteTodo.
    @Test func deleteRemovesFromTheStoreAndTheList() async throws {
        let mock1 = Todo.make(index: 1, text: "Mock Todo 1")
        let mock2 = Todo.make(index: 2, text: "Mock Todo 2")
        let spy = SpyRepository(InMemoryRepository<Todo>([mock1, mock2]))
        let model = model(over: spy)
        await model.fetchTodo()
        spy.reset()

        await model.deleteTodo(mock1)

        #expect(spy.operations == [.delete])
        #expect(spy.calls[0].ids == [mock1.id])
        #expect(model.fetchedTodos == [mock2])
        #expect(try await spy.base.fetchAll() == [mock2])
    }

    /// A row drawn before a rename, toggled afterwards, keeps the new text: the intent starts
    /// from the list's copy, not the caller's.
    @Test func toggleWithAStaleRowKeepsAnEarlierRename() async throws {
        let one = Todo.make(index: 0, text: "one")
        let store = InMemoryRepository<Todo>([one])
        let model = model(over: store)
        await model.fetchTodo()

        await model.editTodo(oldTodo: one, newTodo: "one, renamed")
        await model.toggleTodo(one)

        let expected = [Todo.make(index: 0, text: "one, renamed", isDone: true)]
        #expect(model.errorMessage == nil)
        #expect(model.fetchedTodos == expected)
        #expect(try await store.fetchAll() == expected)
    }

    /// The other way round: a rename from a row drawn before a toggle keeps the todo done.
    @Test func editWithAStaleRowKeepsAnEarlierToggle() async throws {
        let one = Todo.make(index: 0, text: "one")
        let store = InMemoryRepository<Todo>([one])
        let model = model(over: store)
        await model.fetchTodo()

        await model.toggleTodo(one)
        await model.editTodo(oldTodo: one, newTodo: "one, renamed")

        let expected = [Todo.make(index: 0, text: "one, renamed", isDone: true)]
        #expect(model.fetchedTodos == expected)
        #expect(try await store.fetchAll() == expected)
    }

    @Test func underTheOpenFilterATodoMarkedDoneLeavesTheList() async throws {
        let model = model(
            over: InMemoryRepository<Todo>([.make(index: 0, text: "one"), .make(index: 1, text: "two")]))
        await model.select(.open)

        await model.toggleTodo(model.fetchedTodos[0])

        #expect(model.fetchedTodos.map(\.title) == ["two"])
        await model.select(.done)
        #expect(model.fetchedTodos.map(\.title) == ["one"])
    }

    @Test func aFailedSaveSetsTheErrorAndKeepsTheList() async throws {
        let mock1 = Todo.make(index: 1, text: "Mock Todo 1")
        var failing = AnyRepository(InMemoryRepository<Todo>([mock1]))
        let error = offline()
        failing.onSave = { _ in throw error }
        let spy = SpyRepository(failing)
        let model = model(over: spy)
        await model.fetchTodo()

        let added = await model.addTodo("Mock Todo 2")
        #expect(added == nil)
        #expect(model.fetchedTodos == [mock1])
        #expect(
            model.errorMessage?.hasPrefix("Could not add \"Mock Todo 2\". unavailable: The disk is unplugged")
                == true)

        await model.toggleTodo(mock1)
        #expect(model.fetchedTodos == [mock1])
        #expect(model.errorMessage?.hasPrefix("Could not mark \"Mock Todo 1\" done. unavailable") == true)

        await model.editTodo(oldTodo: mock1, newTodo: "Renamed")
        #expect(model.fetchedTodos == [mock1])
        #expect(model.errorMessage?.hasPrefix("Could not rename \"Mock Todo 1\". unavailable") == true)

        #expect(spy.operations == [.fetchQuery, .save, .save, .save])
        #expect(spy.calls(to: .save).allSatisfy { $0.error != nil })
        #expect(try await spy.base.fetchAll() == [mock1])
    }

    @Test func aFailedDeleteKeepsTheTodoInTheList() async throws {
        let mock1 = Todo.make(index: 1, text: "Mock Todo 1")
        let store = FaultInjectingRepository(InMemoryRepository<Todo>([mock1]))
        let model = model(over: store)
        await model.fetchTodo()
        store.failNext(of: .delete, with: offline())

        await model.deleteTodo(mock1)

        #expect(model.fetchedTodos == [mock1])
        #expect(model.errorMessage?.hasPrefix("Could not delete \"Mock Todo 1\". unavailable") == true)
        #expect(try await store.base.fetchAll() == [mock1])
    }

    @Test func aSuccessClearsThePreviousError() async throws {
        let store = FaultInjectingRepository(InMemoryRepository<Todo>())
        let model = model(over: store)
        store.failNext(of: .save, with: offline())

        await model.addTodo("Mock Todo")
        #expect(model.errorMessage != nil)
        let added = try #require(await model.addTodo("Mock Todo"))

        #expect(model.errorMessage == nil)
        #expect(model.fetchedTodos == [added])
    }
}
