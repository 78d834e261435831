import ExampleSupport
import Foundation
import Repositories

/// This device's side of the todo list: its files (`todos.journal`, the list; `todos.outbox`,
/// the changes the API has not taken yet) and the offline-first stack over them and the API.
///
/// Conflicts: the last writer wins. The list has one user on one device here, so what this
/// device saved last is the truth; the SharedList example shows two devices and a merge.
///
/// No automatic sync: the story syncs at the moments it names (at launch, after adding,
/// after the restart), so each line it prints is what is true at that moment. An app would
/// leave `automaticSync` at its default and also sync at launch.
struct TodoDevice: Sendable {
    /// The stack's type: the switched API, the device's journal beside it.
    typealias Stack = OfflineFirstRepository<
        SwitchedRepository<AnyRepository<Todo, UUID>>, FileRepository<Todo>
    >

    /// The device's journal and outbox.
    let files: DeviceFiles<Todo>
    /// What the view model writes to and reads from.
    let todos: Stack

    /// Opens the device's files in `directory` (creating them on a first launch) and the
    /// stack over `api`. A `todos.journal` the previous release wrote (``TodoV1``) is
    /// upgraded by ``Todo/migrations()`` as it opens, once.
    ///
    /// - Throws: what opening the files throws (`locked`, `corrupted`,
    ///   `writtenByNewerVersion` when a newer release wrote the journal).
    init(in directory: URL, api: SwitchedRepository<AnyRepository<Todo, UUID>>) async throws {
        files = try await DeviceFiles(in: directory, name: "todos", migrations: try Todo.migrations())
        todos = api.offlineFirst(
            local: files.local, outbox: files.outbox, conflicts: .lastWriterWins, automaticSync: nil)
    }

    /// How many todos opening `todos.journal` upgraded from the previous release's version:
    /// 0 on every open after the first.
    var upgradedCount: Int { files.local.upgradedRecordCount }

    /// Closes the device's files, as an app that quits leaves them.
    func close() async throws {
        try await files.close()
    }
}
