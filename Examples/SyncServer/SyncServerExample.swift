// SyncServer: the server half of sync in Swift, and two devices syncing with it. Not from an
// article: the articles' apps talk to a server someone else wrote; this one is written with
// the package, `SyncEndpoint` (module RepositoriesHTTP) over a store with a change feed and
// idempotent writes.
//
// The server is `SyncEndpoint(store:)` over an `InMemoryRepository<Note>`, wrapped to count
// the writes it applies; a service would use `PostgresRepository` (Docs/SyncServer.md mounts
// it in Vapor). The devices reach it in process through `SyncEndpointTransport`, behind a
// network of the example's own that can go offline, or lose the answer to a write after the
// server applied it. Each device, the phone and the tablet, has its own files in its own
// subdirectory of the workspace (phone/ and tablet/, each with notes.sqlite, a
// `SQLiteRepository` with its `Outbox(in:)` in the same database, so each change and its row
// commit in one transaction) and its own offline-first stack over an
// `HTTPRepository<Note>` whose configuration names the feed (`.changesEndpoint()`), retried.
//
// The run: the phone saves three notes and syncs; the server applies each once (counted at
// the server). The tablet's first sync reads the feed from the start (a full pull, and the
// report says why). The tablet edits one note and deletes another, and the answer to its
// first write is lost on the way back: the retry sends it again with the same
// `Idempotency-Key`, and the server answers from the key (`Idempotent-Replayed: true`)
// without applying it again. The phone's next sync pulls only what changed: one request,
// two changes received. A sync with nothing to do is one request. The story checks that
// both devices and the server hold the same notes and that no key was applied twice. Last,
// the tablet adds a note and the phone restarts (its files closed and opened again): its
// first sync is still incremental, from the cursor kept beside its outbox.
//
// `--offline` starts with the network off: the phone's notes wait in its outbox, its sync is
// postponed and the server has nothing, then the network comes up and the story goes on as
// online. `--api URL` does not apply (the example is its own server), and `--data-dir PATH`
// keeps phone/ and tablet/ after the run; it must start empty, since the server, in memory,
// starts empty on every run.
//
// Run: swift run SyncServer [--offline] [--data-dir PATH]
import ExampleSupport

/// `swift run SyncServer`: see the header comment.
@main enum SyncServerExample {
    static func main() async {
        await ExampleCommand.run(
            SyncServerStory.self, example: "SyncServer",
            dataDirectoryHelp:
                "keep phone/ and tablet/ (each with notes.sqlite, its notes and its outbox) in PATH after the run; "
                + "PATH must not hold an earlier run's (default: a temporary directory)"
        )
    }
}
