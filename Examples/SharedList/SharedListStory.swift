import ExampleSupport
import Foundation
import Repositories

/// The run: the phone writes the list and both devices bring it in; the network drops and
/// both edit the same items (Milk: different fields; Apples: the same field); the network
/// returns and the phone syncs, then the laptop (whose sync merges), then the phone again.
/// The story checks that both devices and the API end with the same list, every edit
/// kept, and both outboxes empty.
@MainActor struct SharedListStory: ExampleStory {
    /// What the two devices' edits should make together: Milk bought (laptop) and two
    /// (phone), Bread with the phone's note, Apples at the larger of the two quantities.
    static let merged = [
        ShoppingItem(id: 1, name: "Milk", quantity: 2, isBought: true),
        ShoppingItem(id: 2, name: "Bread", quantity: 2, note: "rye"),
        ShoppingItem(id: 3, name: "Apples", quantity: 10),
    ]

    /// The simulated API (or `--api URL`), behind the network switch both devices share.
    let remote: ExampleRemote<ShoppingItem>
    /// Every merge the devices' syncs ran.
    let log = MergeLog()
    /// The device that writes the list and syncs first.
    let phone: ShoppingDevice
    /// The device that syncs second, so its sync meets the phone's changes and merges.
    let laptop: ShoppingDevice

    /// Opens both devices in `workspace`, each in its own subdirectory, over the remote
    /// `options` ask for.
    init(options: ExampleOptions, workspace: ExampleWorkspace) async throws {
        remote = ExampleRemote(options: options, resource: "items", seed: [])
        phone = try await ShoppingDevice(
            name: "phone", in: workspace.directory, api: remote.repository, log: log)
        do {
            laptop = try await ShoppingDevice(
                name: "laptop", in: workspace.directory, api: remote.repository, log: log)
        } catch {
            try await phone.close()
            throw error
        }
    }

    /// Closes both devices' files.
    func close() async throws {
        try await withCleanup {
            try await phone.close()
        } cleanup: {
            try await laptop.close()
        }
    }

    /// Prints the whole story.
    func tell() async throws {
        let network = remote.network.isOnline ? "" : " (offline)"
        print(
            "SharedList: one shopping list on two devices, phone/ and laptop/, each with its own "
                + "items.journal and items.outbox; \(remote.origin)\(network) between them; conflicts settled by .merge"
        )
        try await share()
        try await editOffline()
        try await syncAndMerge()
        try await verifyMerged()
    }

    /// The phone writes the list and syncs, the laptop syncs and has it too. Offline from
    /// the start (`--offline`), the list waits in the phone's outbox and the laptop has
    /// nothing, until the network comes up.
    ///
    /// - Throws: ``StoryFailure`` when either device does not end with the list.
    private func share() async throws {
        Console.heading("The phone writes the list; the laptop brings it in")
        try await sync(phone, "syncs at launch")
        guard await phone.screen.add(ShoppingItem.list) else {
            throw StoryFailure("the phone could not add the list: \(phone.screen.errorMessage ?? "")")
        }
        print("phone: adds \(ShoppingItem.list.map(\.line).joined(separator: ", "))")
        try await sync(phone, "syncs: the list goes up")
        try await sync(laptop, "syncs and brings the list in")
        if !remote.network.isOnline {
            print(
                "The laptop has \(Console.counted(laptop.screen.items.count, "item")): nothing to edit yet.")
            remote.network.goOnline()
            print("The network comes up.")
            try await sync(phone, "syncs: the list goes up")
            try await sync(laptop, "syncs and brings the list in")
        }
        for device in [phone, laptop] {
            guard device.screen.items.filter({ $0.id <= 3 }) == ShoppingItem.list, device.screen.waiting == 0
            else {
                throw StoryFailure(
                    "\(device.name) shows \(device.screen.items.map(\.line)) with \(device.screen.waiting) changes "
                        + "waiting, not the list the phone wrote")
            }
        }
        row("phone", phone.screen.items, waiting: phone.screen.waiting)
        row("laptop", laptop.screen.items, waiting: laptop.screen.waiting)
    }

    /// With the network off, both devices edit the same items: Milk in different fields,
    /// Apples in the same field. Each edit returns at once and waits in its device's outbox.
    ///
    /// - Throws: ``StoryFailure`` when an edit fails, the waiting counts are not the edits
    ///   made, or the API changed.
    private func editOffline() async throws {
        Console.heading("Offline: both devices edit the same items")
        remote.network.goOffline()
        print("The network drops on both devices.")
        let onAPI = try await remote.direct.fetch(ShoppingListViewModel.query)
        try await edit(phone, "Milk ×1 -> ×2", 1) { $0.quantity = 2 }
        try await edit(phone, "Apples ×6 -> ×8", 3) { $0.quantity = 8 }
        try await edit(phone, "Bread: note \"rye\"", 2) { $0.note = "rye" }
        try await edit(laptop, "Milk bought", 1) { $0.isBought = true }
        try await edit(laptop, "Apples ×6 -> ×10", 3) { $0.quantity = 10 }
        row("phone", phone.screen.items, waiting: phone.screen.waiting)
        row("laptop", laptop.screen.items, waiting: laptop.screen.waiting)
        guard phone.screen.waiting == 3, laptop.screen.waiting == 2 else {
            throw StoryFailure(
                "the phone has \(phone.screen.waiting) changes waiting and the laptop \(laptop.screen.waiting), "
                    + "not the 3 and 2 edits made")
        }
        guard try await remote.direct.fetch(ShoppingListViewModel.query) == onAPI else {
            throw StoryFailure("the API changed while the network was off")
        }
        print("The API still has the list as the phone wrote it.")
        print("Milk: each device changed another field. Apples: both changed the quantity, a real conflict.")
    }

    /// The network returns. The phone syncs first: the API has not changed since the phone
    /// read it, so its changes go up as they are. Then the laptop: the API changed Milk and
    /// Apples since the laptop read them, so `.merge` runs for each. Then the phone again,
    /// bringing the merged items in.
    ///
    /// - Throws: ``StoryFailure`` when a sync fails or the merges are not the two expected.
    private func syncAndMerge() async throws {
        Console.heading("The network is back: the phone syncs, then the laptop, then the phone again")
        remote.network.goOnline()
        try await sync(phone, "syncs: its 3 changes go up as they are (no merge: the API had not changed)")
        guard log.all.isEmpty else {
            throw StoryFailure(
                "the phone's sync merged \(log.all.map(\.mine.name)), but nothing had changed on the API")
        }
        try await sync(
            laptop, "syncs: the API changed Milk and Apples since the laptop read them, so .merge ran:")
        for entry in log.all {
            let name = (entry.mine.name + ":").padding(toLength: 8, withPad: " ", startingAt: 0)
            print(
                "  \(name)base \(entry.base?.line ?? "none") | laptop \(entry.mine.line) | API \(entry.theirs.line) "
                    + "-> \(entry.merged.line)")
        }
        print("  Milk keeps the laptop's bought and the phone's ×2; Apples keeps the larger quantity.")
        guard log.all.map(\.merged.id).sorted() == [1, 3], log.all.allSatisfy({ $0.device == "laptop" })
        else {
            throw StoryFailure(
                "the syncs merged \(log.all.map { "\($0.mine.name) on \($0.device)" }), not Milk and Apples on the laptop"
            )
        }
        try await sync(phone, "syncs again: the merged Milk and Apples come in")
    }

    /// Checks that both devices and the API hold the same list, each edit kept, and that
    /// no change waits anywhere.
    ///
    /// - Throws: ``StoryFailure`` naming the difference.
    func verifyMerged() async throws {
        Console.heading("The merged list, on both devices and the API")
        let onAPI = try await remote.direct.fetch(ShoppingListViewModel.query)
        row("phone", phone.screen.items, waiting: phone.screen.waiting)
        row("laptop", laptop.screen.items, waiting: laptop.screen.waiting)
        row("API", onAPI, waiting: nil)
        for device in [phone, laptop] {
            let onDevice = try await device.files.local.fetch(ShoppingListViewModel.query)
            guard onDevice == onAPI, device.screen.items == onAPI else {
                throw StoryFailure(
                    "\(device.name) holds \(onDevice.map(\.line)), the API \(onAPI.map(\.line))")
            }
            let waiting = try await device.files.outbox.changes()
            guard waiting.isEmpty else {
                throw StoryFailure(
                    "\(device.name)'s items.outbox still holds \(Console.counted(waiting.count, "change"))")
            }
        }
        guard onAPI.filter({ $0.id <= 3 }) == Self.merged else {
            throw StoryFailure(
                "the API holds \(onAPI.map(\.line)), not the merge of both devices' edits, "
                    + "\(Self.merged.map(\.line))")
        }
        print(
            "Checked: the phone, the laptop and the API hold the same list, every edit kept; both outboxes are empty."
        )
    }

    /// Has `device`'s screen change item `id` as `change` says, and prints it as `what`.
    ///
    /// - Throws: ``StoryFailure`` when the device did not take the change.
    private func edit(
        _ device: ShoppingDevice, _ what: String, _ id: Int, _ change: (inout ShoppingItem) -> Void
    ) async throws {
        guard await device.screen.update(id, change) else {
            throw StoryFailure(
                "\(device.name) could not make the edit \(what): \(device.screen.errorMessage ?? "")")
        }
        print("\(device.name): \(what)")
    }

    /// Has `device`'s screen sync and prints `what` it did, or that the sync was postponed
    /// because the API cannot be reached.
    ///
    /// - Throws: ``StoryFailure`` when the sync failed with the network on.
    private func sync(_ device: ShoppingDevice, _ what: String) async throws {
        if await device.screen.sync() {
            print("\(device.name) \(what)")
            return
        }
        let message = device.screen.errorMessage ?? ""
        guard !remote.network.isOnline else {
            throw StoryFailure("\(device.name)'s sync failed with the network on: \(message)")
        }
        print(
            "\(device.name): sync postponed, the API cannot be reached; \(Console.changesWaiting(device.screen.waiting))"
        )
    }

    /// One line per place: `phone   [x] Milk ×2 · [ ] Bread ×2 (rye)   (1 change waiting)`.
    private func row(_ label: String, _ items: [ShoppingItem], waiting: Int?) {
        let padded = label.padding(toLength: 7, withPad: " ", startingAt: 0)
        let list = items.isEmpty ? "(empty)" : items.map(\.line).joined(separator: " · ")
        print(padded + list + (waiting.map { "   (\(Console.changesWaiting($0)))" } ?? ""))
    }

}
