import ExampleSupport
import Foundation
import Repositories

/// One device of the shared list: its own files in its own directory (`items.journal`,
/// `items.outbox`), the offline-first stack over them and the one API, and its screen.
///
/// The stack settles conflicts field by field (``ShoppingItem/conflictPolicy``) and keeps a
/// record of each, which the screen lists. It syncs only when asked, so the story decides
/// which device syncs first and each line it prints is true when printed.
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

    /// Opens the device `name` in `directory/name` over `api`.
    ///
    /// - Throws: what opening the files throws (`locked`, `corrupted`).
    init(name: String, in directory: URL, api: SwitchedRepository<AnyRepository<ShoppingItem, Int>>)
        async throws
    {
        self.name = name
        files = try await DeviceFiles(
            in: directory.appendingPathComponent(name, isDirectory: true), name: "items")
        list = api.offlineFirst(
            local: files.local, outbox: files.outbox, conflicts: ShoppingItem.conflictPolicy,
            automaticSync: nil)
        screen = ShoppingListViewModel(repository: list)
    }

    /// Closes the device's files.
    func close() async throws {
        try await files.close()
    }
}
