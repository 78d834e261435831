import ExampleSupport
import Foundation
import Repositories

/// The run: the phone writes the list and both devices bring it in; the network drops and
/// both edit the same items (Milk: different fields; Apples and Bread: the same field); the
/// network returns and the phone syncs, then the laptop (whose sync settles three conflicts
/// and keeps a record of each), then the phone again. The story checks that both devices
/// and the API end with the same list and both outboxes empty, accounts for every edit (kept,
/// or named by a conflict record), and has the laptop's user acknowledge the records. Last,
/// the API refuses a change of the phone's, its message shown beside the field, and the
/// phone's user discards it.
@MainActor struct SharedListStory: ExampleStory {
    /// What the two devices' edits make together: Milk bought (laptop) and two (phone),
    /// Bread with the phone's note (the laptop's gave way), Apples at the larger quantity.
    static let merged = [
        ShoppingItem(id: 1, name: "Milk", quantity: 2, isBought: true),
        ShoppingItem(id: 2, name: "Bread", quantity: 2, note: "rye"),
        ShoppingItem(id: 3, name: "Apples", quantity: 10),
    ]

    /// The simulated API (or `--api URL`), behind the network switch both devices share.
    let remote: ExampleRemote<ShoppingItem>
    /// The device that writes the list and syncs first.
    let phone: ShoppingDevice
    /// The device that syncs second, so its sync meets the phone's changes and settles the
    /// conflicts.
    let laptop: ShoppingDevice

    /// Opens both devices in `workspace`, each in its own subdirectory, over the remote
    /// `options` ask for.
    init(options: ExampleOptions, workspace: ExampleWorkspace) async throws {
        remote = ExampleRemote(
            options: options, resource: "items", seed: [], validation: ShoppingItem.apiValidation)
        phone = try await ShoppingDevice(name: "phone", in: workspace.directory, api: remote.repository)
        do {
            laptop = try await ShoppingDevice(name: "laptop", in: workspace.directory, api: remote.repository)
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
                + "items.journal and items.outbox; \(remote.origin)\(network) between them; "
                + "conflicts settled field by field"
        )
        try await share()
        try await editOffline()
        try await syncAndSettle()
        try await verifyMerged()
        try await accountForEveryEdit()
        try await refuseThenDiscard()
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
        row(phone)
        row(laptop)
    }

    /// With the network off, both devices edit the same items (``ListEdit/offline``): Milk
    /// in different fields, Apples and Bread in the same field. Each edit returns at once and
    /// waits in its device's outbox.
    ///
    /// - Throws: ``StoryFailure`` when an edit fails, the waiting counts are not the edits
    ///   made, or the API changed.
    private func editOffline() async throws {
        Console.heading("Offline: both devices edit the same items")
        remote.network.goOffline()
        print("The network drops on both devices.")
        let onAPI = try await remote.direct.fetch(ShoppingListViewModel.query)
        for edit in ListEdit.offline {
            let device = edit.device == phone.name ? phone : laptop
            guard await device.screen.update(edit.itemID, edit.change) else {
                throw StoryFailure(
                    "\(device.name) could not make the edit \(edit.label): \(device.screen.errorMessage ?? "")"
                )
            }
            print("\(device.name): \(edit.label)")
        }
        row(phone)
        row(laptop)
        guard phone.screen.waiting == 3, laptop.screen.waiting == 3 else {
            throw StoryFailure(
                "the phone has \(phone.screen.waiting) changes waiting and the laptop \(laptop.screen.waiting), "
                    + "not the 3 and 3 edits made")
        }
        guard try await remote.direct.fetch(ShoppingListViewModel.query) == onAPI else {
            throw StoryFailure("the API changed while the network was off")
        }
        print("The API still has the list as the phone wrote it.")
        print("Milk: each device changed another field. Apples and Bread: both changed the same field.")
    }

    /// The network returns. The phone syncs first: the API has not changed since the phone
    /// read it, so its changes go up as they are. Then the laptop: the API changed Milk,
    /// Bread and Apples since the laptop read them, so the field merge settles each, and the
    /// laptop's screen lists the record it keeps of each. Then the phone again, bringing the
    /// merged items in.
    ///
    /// - Throws: ``StoryFailure`` when a sync fails, or the records are not the three
    ///   expected, on the laptop alone, each with the item the laptop holds.
    private func syncAndSettle() async throws {
        Console.heading("The network is back: the phone syncs, then the laptop, then the phone again")
        remote.network.goOnline()
        try await sync(phone, "syncs: its 3 changes go up as they are (no conflict: the API had not changed)")
        guard phone.screen.conflicts.isEmpty else {
            throw StoryFailure(
                "the phone's sync settled conflicts of \(phone.screen.conflicts.map(\.entityID)), "
                    + "but nothing had changed on the API")
        }
        try await sync(
            laptop,
            "syncs: the API changed Milk, Bread and Apples since the laptop read them; "
                + "each is settled field by field, and its record kept:")
        let records = laptop.screen.conflicts
        for conflict in records {
            let name = ((conflict.local ?? conflict.remote)?.name ?? "#\(conflict.entityID)") + ":"
            print(
                "  \(name.padding(toLength: 8, withPad: " ", startingAt: 0))base \(conflict.base?.line ?? "none") | "
                    + "laptop \(conflict.local?.line ?? "deleted") | API \(conflict.remote?.line ?? "deleted") "
                    + "-> \(conflict.result?.line ?? "deleted")")
            print("          \(conflict.resolution)")
        }
        guard records.map(\.entityID).sorted() == [1, 2, 3] else {
            throw StoryFailure(
                "the laptop's screen lists the conflicts of \(records.map(\.entityID)), not Milk, Bread and Apples"
            )
        }
        for conflict in records {
            let held = laptop.screen.items.first { $0.id == conflict.entityID }
            guard held == conflict.result else {
                throw StoryFailure(
                    "the laptop holds \(held?.line ?? "nothing") for item \(conflict.entityID), "
                        + "but its record kept \(conflict.result?.line ?? "nothing")")
            }
        }
        try await sync(phone, "syncs again: the settled Milk and Apples come in")
    }

    /// Checks that both devices and the API hold the same list, the merge of both devices'
    /// edits, and that no change waits anywhere.
    ///
    /// - Throws: ``StoryFailure`` naming the difference.
    func verifyMerged() async throws {
        Console.heading("The settled list, on both devices and the API")
        let onAPI = try await remote.direct.fetch(ShoppingListViewModel.query)
        row(phone)
        row(laptop)
        row("API", onAPI)
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
        print("Checked: the phone, the laptop and the API hold the same list; both outboxes are empty.")
    }

    /// Accounts for every offline edit: each is in the list the API holds, or gave way and is
    /// named by a conflict record a device keeps. Then the laptop's user, having read the
    /// records, acknowledges each, and the laptop keeps none.
    ///
    /// - Throws: ``StoryFailure`` naming an edit that is neither kept nor named, or a record
    ///   still kept after its acknowledgement.
    func accountForEveryEdit() async throws {
        Console.heading("Every edit: kept, or named by a conflict record")
        let onAPI = try await remote.direct.fetch(ShoppingListViewModel.query)
        let records = [phone, laptop].flatMap { device in
            device.screen.conflicts.map { (device: device.name, conflict: $0) }
        }
        for edit in ListEdit.offline {
            let what =
                "\(edit.device.padding(toLength: 7, withPad: " ", startingAt: 0))"
                + edit.label.padding(toLength: 22, withPad: " ", startingAt: 0)
            if edit.isIn(onAPI.first { $0.id == edit.itemID }) {
                print("  \(what)kept")
            } else if let record = edit.namedBy(records) {
                let item = record.conflict.result?.name ?? "#\(edit.itemID)"
                print("  \(what)gave way; the \(record.device)'s record of \(item) names it")
            } else {
                throw StoryFailure(
                    "\(edit.device)'s edit \(edit.label) is neither in the API's list nor named by a conflict record"
                )
            }
        }
        for conflict in laptop.screen.conflicts {
            guard await laptop.screen.acknowledge(conflict) else {
                throw StoryFailure(
                    "the laptop could not acknowledge the conflict of item \(conflict.entityID): "
                        + (laptop.screen.errorMessage ?? ""))
            }
        }
        let kept = try await laptop.list.snapshot(ShoppingListViewModel.query).conflicts
        guard laptop.screen.conflicts.isEmpty, kept.isEmpty else {
            throw StoryFailure(
                "after acknowledging, the laptop's screen lists \(laptop.screen.conflicts.count) conflicts "
                    + "and its repository keeps \(kept.count)")
        }
        print(
            "The laptop's user read the \(Console.counted(records.count, "record")) and acknowledged each: "
                + "the laptop keeps none.")
    }

    /// A change the API refuses: the phone makes Bread ×0, its sync sends it, and the
    /// simulated API refuses it as Django REST Framework does, `400` with the field's
    /// message; the phone's form shows it beside the quantity, and the user discards the
    /// change, which puts the API's Bread back. Skipped with `--api`: a real API has rules of
    /// its own.
    ///
    /// - Throws: ``StoryFailure`` when the API takes the change, the screen does not show its
    ///   message beside the field, or the discard does not put the API's Bread back.
    func refuseThenDiscard() async throws {
        Console.heading("A change the API refuses")
        guard let validation = remote.validation else {
            print(
                "Skipped with --api: the simulated API refuses a quantity of 0 as Django REST Framework does; "
                    + "\(remote.origin) has rules of its own.")
            return
        }
        let onAPI = try await remote.direct.fetch(id: 2)
        guard await phone.screen.update(2, { $0.quantity = 0 }) else {
            throw StoryFailure("the phone could not make Bread ×0: \(phone.screen.errorMessage ?? "")")
        }
        print("phone: Bread ×2 -> ×0")
        guard await phone.screen.sync(), let refusal = phone.screen.refusals[2] else {
            throw StoryFailure(
                "the phone's sync \(phone.screen.errorMessage.map { "failed: \($0)" } ?? "sent Bread ×0"), "
                    + "which the API should have refused")
        }
        print(
            "phone syncs: the API refused the change, HTTP \(refusal.httpStatus.map(String.init) ?? "without a status"), "
                + "\(validation.format.framework)'s field errors, read by HTTPRepository.")
        let mistake = phone.screen.items.first { $0.id == 2 }
        print("The phone's form for Bread, the API's message beside its field:")
        if let mistake { form(mistake, errors: phone.screen.fieldErrors(of: 2)) }
        row(phone)
        let expected = mistake.map { item in
            Dictionary(validation.broken(by: item).map { ($0.field, [$0.message]) }, uniquingKeysWith: +)
        }
        guard refusal.httpStatus == validation.format.status, phone.screen.fieldErrors(of: 2) == expected,
            phone.screen.waiting == 0, try await remote.direct.fetch(id: 2) == onAPI
        else {
            throw StoryFailure(
                "the refusal of Bread reads HTTP \(refusal.httpStatus ?? 0) with \(phone.screen.fieldErrors(of: 2)), "
                    + "\(phone.screen.waiting) changes waiting, or the API's Bread changed")
        }
        guard await phone.screen.discard(2) else {
            throw StoryFailure("the phone could not discard Bread ×0: \(phone.screen.errorMessage ?? "")")
        }
        print("The phone's user discards the change: discard(id:) puts the API's Bread back.")
        row(phone)
        guard phone.screen.items.first(where: { $0.id == 2 }) == onAPI, phone.screen.refusals.isEmpty,
            phone.screen.waiting == 0
        else {
            throw StoryFailure(
                "after the discard the phone shows \(phone.screen.items.map(\.line)) with "
                    + "\(phone.screen.refusals.count) refused and \(phone.screen.waiting) waiting, not the API's Bread"
            )
        }
        print(
            "Checked: the API kept \(onAPI?.line ?? "no Bread"); the phone shows it again, nothing refused or waiting."
        )
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

    /// Prints `item` as a form, one field a line, with `errors` (by field) beside theirs.
    private func form(_ item: ShoppingItem, errors: [String: [String]]) {
        Console.form(
            [
                ("name", item.name), ("quantity", "\(item.quantity)"),
                ("isBought", item.isBought ? "yes" : "no"),
                ("note", item.note),
            ], errors: errors, nameWidth: 10, valueWidth: 8)
    }

    /// One line for `device`'s screen: its items, and its changes waiting and refused.
    private func row(_ device: ShoppingDevice) {
        let refused = device.screen.refusals.count
        let waiting =
            Console.changesWaiting(device.screen.waiting) + (refused == 0 ? "" : "; \(refused) refused")
        row(device.name, device.screen.items, note: waiting)
    }

    /// One line per place: `phone   [x] Milk ×2 · [ ] Bread ×2 (rye)   (1 change waiting)`.
    private func row(_ label: String, _ items: [ShoppingItem], note: String? = nil) {
        let padded = label.padding(toLength: 7, withPad: " ", startingAt: 0)
        let list = items.isEmpty ? "(empty)" : items.map(\.line).joined(separator: " · ")
        print(padded + list + (note.map { "   (\($0))" } ?? ""))
    }
}
