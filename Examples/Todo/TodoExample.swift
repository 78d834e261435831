// Todo: the article "Repository pattern" (shared/seeds/003_955eb6bc16870a9a.txt). Its
// TodoUserDefaultRepository kept the todos as two parallel UserDefaults arrays (texts and
// dates) behind a TodoRepositoryProtocol, its TodoViewModel resolved that protocol from a
// container, and its tests handed the view model a MockTodoUserDefaultRepository.
//
// Here the protocol is the package's `Repository<Todo, UUID>`, and the view model sees only
// `any Repository<Todo, UUID>`, so its tests (Tests/TodoTests) hand it a spy or an
// `AnyRepository`, and the conformance suite checks the real store with this entity.
//
// The data layer is offline-first, because a todo list must take every edit whether the
// network is there or not: `api.offlineFirst(local: FileRepository<Todo>, outbox:
// Outbox<Todo>, conflicts: .lastWriterWins)` (TodoDevice). Every add, toggle, rename and
// delete is in todos.journal and queued in todos.outbox when it returns, and `sync()` sends
// the queued changes to the API (the simulated one, or `--api URL`) in order, then brings
// the API's list back. `api.fallback(to: file)` would refuse each edit offline, and
// `file.writeThrough(to: api)` would need the API for each one.
//
// This is version 2 of the app: its `Todo` calls the text `title` (the article's `todo`) and
// adds `pinned`. The run starts as its first launch on a device where the previous release
// (`TodoV1`) left todos.journal: the story writes that file with `TodoV1`, then opens it
// with `Todo.migrations()`, which upgrades every todo and writes the file back once, and
// prints the counts and one todo before and after. A restart later upgrades nothing.
//
// Then the run adds four todos and syncs; the network drops; it toggles, renames and deletes
// (three changes wait in the outbox); it restarts, closing both files and opening them
// again (the list and the three changes are still there); the network returns and one
// sync brings the changes to the API, which the story checks against the device, with the
// outbox empty. Under `--offline` the network is off from the start, so all the edits wait
// until it returns after the restart.
//
// Run: swift run Todo [--offline] [--api URL] [--data-dir PATH]
import ExampleSupport

/// `swift run Todo`: see the header comment.
@main enum TodoExample {
    static func main() async {
        await ExampleCommand.run(
            example: "Todo",
            dataDirectoryHelp:
                "keep todos.journal and todos.outbox in PATH between runs (default: a temporary directory)"
        ) { options in
            try await TodoStory.run(options: options)
        }
    }
}
