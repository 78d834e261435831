// Todo: the article "Repository pattern" (shared/seeds/003_955eb6bc16870a9a.txt). Its
// TodoUserDefaultRepository kept the todos as two parallel UserDefaults arrays (texts and
// dates) behind a TodoRepositoryProtocol, its TodoViewModel resolved that protocol from a
// container, and its tests handed the view model a MockTodoUserDefaultRepository.
//
// Here the protocol is the package's `Repository<Todo, UUID>` and the store a
// `FileRepository<Todo>` journal (todos.journal): every add, toggle, rename and delete is on
// disk when it returns, and the list survives closing and reopening the store. The view
// model sees only `any Repository<Todo, UUID>`, so its tests (Tests/TodoTests) hand it a spy
// or an `AnyRepository`, and the conformance suite checks the real store with this entity.
//
// The data layer, and why it is not a `fallback(to:)` or `writeThrough(to:)` stack: a todo
// app is local-first. `api.fallback(to: file)` sends every write to the API first, so adding
// a todo offline would fail; `file.writeThrough(to: api)` needs the API to take each write
// too, and makes the API a cache, which it must never be (a failed PUT would be answered
// with a DELETE of the server's copy, and the stack stops the program). So the file is the source of truth and the view model's
// only store, and the API (the simulated one, or `--api URL`) keeps a backup of this
// device's list: `TodoSync` pushes the list to it in two or three calls (read the API's
// todos, save the device's as one batch, delete those the device deleted), making the API
// hold exactly this device's todos. It is a backup, not a sync between devices: a second
// device pushing to the same API would delete this one's todos. Under `--offline` every edit
// still works and the push is postponed, losing nothing.
//
// Run: swift run Todo [--offline] [--api URL] [--data-dir PATH]
import ExampleSupport

/// `swift run Todo`: see the header comment.
@main enum TodoExample {
    static func main() async {
        await ExampleCommand.run(
            example: "Todo",
            dataDirectoryHelp: "keep todos.journal in PATH between runs (default: a temporary directory)"
        ) { options in
            try await TodoStory.run(options: options)
        }
    }
}
