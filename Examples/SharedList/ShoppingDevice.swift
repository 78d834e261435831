import ExampleSupport
import Foundation
import Repositories

/// One device of the shared list: its own files in its own directory (`items.journal`,
/// `items.outbox`), the offline-first stack over them and the one API, and its screen.
///
/// The stack settles conflicts with `.merge`: ``ShoppingItem/merged(base:mine:theirs:)``,
/// each merge recorded in the log. It syncs only when asked, so the story decides which
/// device syncs first and each line it prints is true when printed.
@MainActor struct ShoppingDevice {
    /// The stack's type: the switched API, the device's journal beside it.
    typealias Stack = OfflineFirstRepository<
        SwitchedRepository<AnyRepository<ShoppingItem, Int>>, FileRepository<ShoppingItem>
    >

    /// The device's name, such as `phone`; also its directory's name.
    let name: String
    /// The device's journal and outbox.
    let files: DeviceFiles<ShoppingItem>
    /// The device's stack.
    let list: Stack
    /// The device's screen.
    let screen: ShoppingListViewModel

    /// Opens the device `name` in `directory/name` over `api`; its merges go to `log`.
    ///
    /// - Throws: what opening the files throws (`locked`, `corrupted`).
    init(
        name: String, in directory: URL, api: SwitchedRepository<AnyRepository<ShoppingItem, Int>>,
        log: MergeLog
    ) async throws {
        self.name = name
        files = try await DeviceFiles(
            in: directory.appendingPathComponent(name, isDirectory: true), name: "items")
        list = api.offlineFirst(
            local: files.local, outbox: files.outbox, conflicts: Self.conflicts(device: name, log: log),
            automaticSync: nil)
        screen = ShoppingListViewModel(repository: list)
    }

    /// The merge policy of device `device`, recording each merge in `log`.
    static func conflicts(device: String, log: MergeLog) -> ConflictPolicy<ShoppingItem> {
        .merge { base, mine, theirs in
            let merged = ShoppingItem.merged(base: base, mine: mine, theirs: theirs)
            log.record(MergeLog.Entry(device: device, base: base, mine: mine, theirs: theirs, merged: merged))
            return merged
        }
    }

    /// Closes the device's files.
    func close() async throws {
        try await files.close()
    }
}
