import ExampleSupport
import Foundation
import Repositories

/// The run, step by step: builds the offline-first stack over the example's remote and two
/// files in the workspace, drives the view model, and prints what the device, its outbox
/// and the API hold at each step, checking each claim first: a price saved offline while
/// the office changes the product's description on the API, the conflict the sync settles
/// and its record, then a price the API refuses, with its message beside the field, and the
/// fix.
@MainActor struct MahsulotStory: ExampleStory {
    private let options: ExampleOptions
    /// The simulated API (or `--api URL`), behind its network switch.
    let remote: ExampleRemote<Mahsulot>
    /// The device's file of products and its outbox.
    let files: DeviceFiles<Mahsulot>
    /// The stack: the device's file answers, the outbox keeps the saves, a sync meets the API.
    let products:
        OfflineFirstRepository<SwitchedRepository<AnyRepository<Mahsulot, Int>>, FileRepository<Mahsulot>>

    /// Opens the device's files in `workspace` and the stack over the remote `options` ask for.
    ///
    /// - Parameter automaticSync: ``MahsulotRepository/automaticSync`` as the example runs;
    ///   `nil` for a test that drives the steps one by one.
    init(
        options: ExampleOptions, workspace: ExampleWorkspace, automaticSync: AutomaticSync?
    ) async throws {
        self.options = options
        remote = ExampleRemote(
            options: options, resource: "mahsulotlar", seed: Mahsulot.namunalar,
            validation: Mahsulot.apiValidation)
        files = try await DeviceFiles(in: workspace.directory, name: "mahsulotlar")
        products = MahsulotRepository.make(
            remote: remote.repository, files: files, automaticSync: automaticSync)
    }

    /// The story as `swift run Mahsulot` tells it: the article's automatic sync.
    init(options: ExampleOptions, workspace: ExampleWorkspace) async throws {
        try await self.init(
            options: options, workspace: workspace, automaticSync: MahsulotRepository.automaticSync)
    }

    /// Stops the automatic sync and closes the device's files.
    func close() async throws {
        products.stopAutomaticSync()
        try await files.close()
    }

    /// Prints the whole story.
    func tell() async throws {
        print(
            "Mahsulot: products from \(remote.origin); this device keeps them in \(files.localName) "
                + "and its unsent saves in \(files.outboxName)")
        let viewModel = MahsulotlarViewModel(repository: products)
        if options.offline {
            try await loadWithNothingSaved(viewModel)
            remote.network.goOnline()
            print("The network is back.")
        }
        try await loadOnline(viewModel)
        try await loadOffline(viewModel)
        let changed = try await saveOffline(viewModel)
        let office = try await changeOnTheAPIMeanwhile(changed.id)
        var kept = office
        kept.narxi = changed.narxi
        try await sendWhenTheNetworkReturns(kept, viewModel)
        try await showTheConflict(viewModel, saved: changed, office: office, kept: kept)
        try await refuseThenFix(viewModel)
    }

    /// What the office writes as the description of the product the device changes offline.
    static let officeDescription = "Tandir noni, har kuni ertalab yopiladi"

    /// The article's step 4: offline, and the device's file empty, so the API's error is
    /// what the user sees.
    private func loadWithNothingSaved(_ viewModel: MahsulotlarViewModel) async throws {
        Console.heading("Offline from the start")
        print("\(files.localName) holds \(Console.counted(try await products.local.count(), "product")).")
        await viewModel.yuklash()
        show(viewModel)
        if viewModel.xatoXabari != nil {
            print("Lokal ham bo'sh: nothing to fall back on, so the API's error reaches the screen.")
        } else {
            print("The file answers with the products of an earlier run, without an error.")
        }
    }

    /// (a) Online: the sync brings the API's products into the device's file.
    ///
    /// - Throws: ``StoryFailure`` when the sync failed, or the file does not hold what the
    ///   API holds.
    func loadOnline(_ viewModel: MahsulotlarViewModel) async throws {
        Console.heading("Online: yuklash()")
        let before = remote.network.requests
        await viewModel.yuklash()
        if let error = products.lastSyncError {
            throw StoryFailure(
                "The online sync failed, so \(files.localName) is not the API's copy: \(error)")
        }
        show(viewModel)
        for mahsulot in viewModel.mahsulotlar { print("  " + describe(mahsulot)) }
        let onDevice = try await products.local.fetch(MahsulotlarViewModel.query)
        let onAPI = try await remote.direct.fetch(MahsulotlarViewModel.query)
        guard onDevice == onAPI, viewModel.mahsulotlar == onDevice else {
            throw StoryFailure(
                "After the sync \(files.localName) holds \(onDevice.count) products and the screen "
                    + "\(viewModel.mahsulotlar.count), but the API holds \(onAPI.count), or other copies")
        }
        let answered = remote.network.requests - before
        print(
            "The API answered \(Console.counted(onAPI.count, "product")) "
                + "(\(Console.counted(answered, "request"))); \(files.localName) holds the same \(onDevice.count)."
        )
    }

    /// (b) Offline: the sync fails, and the view model shows the device's products without
    /// an error (the article's step 3); the snapshot says how old they are.
    ///
    /// - Throws: ``StoryFailure`` when the screen lost the products.
    private func loadOffline(_ viewModel: MahsulotlarViewModel) async throws {
        Console.heading("Offline: yuklash() again")
        remote.network.goOffline()
        let refused = remote.network.refused
        let shown = viewModel.mahsulotlar
        await viewModel.yuklash()
        show(viewModel)
        guard viewModel.mahsulotlar == shown, viewModel.xatoXabari == nil else {
            throw StoryFailure(
                "Offline, the screen shows \(viewModel.mahsulotlar.count) products and the error "
                    + "\(viewModel.xatoXabari ?? "nil"), not the \(shown.count) the device holds")
        }
        print(
            "The API refused \(Console.counted(remote.network.refused - refused, "request")); "
                + "the screen shows the device's products, without an error.")
        let snapshot = try await products.snapshot(MahsulotlarViewModel.query)
        let age = snapshot.age().map { "synced \(Console.format(.seconds($0))) ago" } ?? "never synced"
        print(
            "The snapshot says more: \(Console.counted(snapshot.entities.count, "product")), \(age), "
                + "last sync error: \(snapshot.lastSyncError.map { "\($0.code)" } ?? "none").")
    }

    /// (c) Offline, a save of a new price returns at once: the device has it, the outbox
    /// keeps it, the API does not have it yet, and the screen shows one change waiting.
    ///
    /// - Returns: the product as saved.
    /// - Throws: ``StoryFailure`` when the save failed or any of those is not so.
    func saveOffline(_ viewModel: MahsulotlarViewModel) async throws -> Mahsulot {
        Console.heading("Offline: saqlash() a new price")
        guard var changed = try await products.local.fetch(id: 1) else {
            throw StoryFailure(
                "\(files.localName) has no product 1 to change: the online load did not bring it")
        }
        let before = changed
        changed.narxi += 500
        guard await viewModel.saqlash(changed) else {
            throw StoryFailure(
                "saqlash(\(changed.nomi) at \(price(changed))) failed offline: \(viewModel.xatoXabari ?? "")")
        }
        print("saqlash(\(changed.nomi) at \(price(changed))) returned at once, with the network off.")
        show(viewModel)
        print("The screen's badge: \(Console.changesWaiting(viewModel.kutilayotganlar))")
        try await verifyWaiting(changed, apiHas: before)
        return changed
    }

    /// Checks that `changed` is on the device and waits in the outbox as its only change,
    /// and that the API still has `apiHas`.
    ///
    /// - Throws: ``StoryFailure`` naming what is not so.
    func verifyWaiting(_ changed: Mahsulot, apiHas before: Mahsulot) async throws {
        let local = try await products.local.fetch(id: changed.id)
        guard local == changed else {
            throw StoryFailure(
                "\(files.localName) has \(local.map(price) ?? "no copy") for \(changed.nomi), not \(price(changed))"
            )
        }
        let waiting = try await products.outbox.changes()
        guard waiting.count == 1, let change = waiting.first, change.id == changed.id,
            case .save(let queued) = change.kind, queued == changed
        else {
            throw StoryFailure(
                "\(files.outboxName) should hold the save of \(changed.nomi) alone; it holds \(waiting.count) changes"
            )
        }
        print("\(files.outboxName): save #\(changed.id) \(changed.nomi) at \(price(queued)), waiting.")
        let onAPI = try await remote.direct.fetch(id: changed.id)
        guard onAPI == before else {
            throw StoryFailure(
                "The API has \(onAPI.map(price) ?? "no copy") for \(changed.nomi) while offline, not \(price(before))"
            )
        }
        print("The API still has \(price(before)) for \(before.nomi).")
    }

    /// (c′) While the device is offline, the office changes the same product's description
    /// on the API (another client, past this device's network switch): the device's save was
    /// made on the version before, so its sync will meet a conflict.
    ///
    /// - Returns: the product as the office left it on the API.
    /// - Throws: ``StoryFailure`` when the API has no product `id`.
    func changeOnTheAPIMeanwhile(_ id: Int) async throws -> Mahsulot {
        Console.heading("Meanwhile, the office changes the description on the API")
        guard var office = try await remote.direct.fetch(id: id) else {
            throw StoryFailure("The API has no product \(id) for the office to change")
        }
        let before = office.tavsifi
        office.tavsifi = Self.officeDescription
        try await remote.direct.save(office)
        print(
            "The office, another client of the API, changes \(office.nomi)'s tavsifi: "
                + "\"\(before)\" -> \"\(office.tavsifi)\".")
        print("The device's save was made on \(office.nomi) as it was before: its sync will meet a conflict.")
        return office
    }

    /// (d) The network returns; the sync the save started, retrying with backoff, sends the
    /// change by itself (the story does not call `sync()`), merged with the office's. Then
    /// the view model loads again.
    ///
    /// - Parameter changed: the product the API should end with.
    /// - Throws: ``StoryFailure`` when the change does not reach the API, or the screen
    ///   still shows a change waiting.
    private func sendWhenTheNetworkReturns(_ changed: Mahsulot, _ viewModel: MahsulotlarViewModel)
        async throws
    {
        Console.heading("The network is back: the automatic sync")
        remote.network.goOnline()
        print("No sync() call: the sync the save started retries with backoff until the API answers.")
        try await products.waitUntilSent()
        try await verifyArrived(changed)
        await viewModel.yuklash()
        show(viewModel)
        guard viewModel.kutilayotganlar == 0,
            viewModel.mahsulotlar.first(where: { $0.id == changed.id }) == changed
        else {
            throw StoryFailure(
                "After the sync the screen shows \(viewModel.kutilayotganlar) changes waiting, "
                    + "or not \(price(changed)) for \(changed.nomi)")
        }
        print(
            "The screen's badge: \(Console.changesWaiting(viewModel.kutilayotganlar)); \(changed.nomi) at \(price(changed))."
        )
    }

    /// Checks that the API holds `changed` and the outbox is empty.
    ///
    /// - Throws: ``StoryFailure`` naming what is not so.
    func verifyArrived(_ changed: Mahsulot) async throws {
        let onAPI = try await remote.direct.fetch(id: changed.id)
        guard onAPI == changed else {
            throw StoryFailure(
                "The API has \(onAPI.map(price) ?? "no copy") for \(changed.nomi), not the \(price(changed)) saved offline"
            )
        }
        let waiting = try await products.outbox.changes()
        guard waiting.isEmpty else {
            throw StoryFailure(
                "\(files.outboxName) still holds \(Console.counted(waiting.count, "change")): "
                    + waiting.map { "#\($0.id) \($0.status)" }.joined(separator: ", "))
        }
        print(
            "The change reached the API: it has \(price(changed)) for \(changed.nomi); \(files.outboxName) is empty."
        )
    }

    /// (e) What the sync decided: the screen lists the conflict it settled, with the three
    /// versions and the policy's one line, and the story checks that each edit is in what was
    /// kept (the device's price, the office's description). Then the user marks it seen.
    ///
    /// - Parameters:
    ///   - saved: the product as the device saved it offline.
    ///   - office: the product as the office left it on the API.
    ///   - kept: the merge of the two, which the API and the device should hold.
    /// - Throws: ``StoryFailure`` when the screen does not list that one conflict, its record
    ///   is not the merge, or it is still kept after the user saw it.
    func showTheConflict(_ viewModel: MahsulotlarViewModel, saved: Mahsulot, office: Mahsulot, kept: Mahsulot)
        async throws
    {
        Console.heading("What the sync decided: ziddiyatlar")
        print(
            "The screen lists \(Console.counted(viewModel.ziddiyatlar.count, "conflict")) the sync settled:")
        guard viewModel.ziddiyatlar.count == 1, let ziddiyat = viewModel.ziddiyatlar.first,
            ziddiyat.entityID == saved.id
        else {
            throw StoryFailure(
                "The screen lists the conflicts of \(viewModel.ziddiyatlar.map(\.entityID)), not the one of \(saved.nomi)"
            )
        }
        print("#\(ziddiyat.entityID) \(saved.nomi): \(ziddiyat.resolution)")
        for (label, version) in [
            ("base", ziddiyat.base), ("device", ziddiyat.local), ("API", ziddiyat.remote),
            ("kept", ziddiyat.result),
        ] {
            let text = version.map {
                price($0).padding(toLength: 12, withPad: " ", startingAt: 0) + $0.tavsifi
            }
            print("  " + label.padding(toLength: 7, withPad: " ", startingAt: 0) + (text ?? "(none)"))
        }
        let merged = ConflictResolution.mergedByField(
            localFields: ["narxi"], remoteFields: ["tavsifi"], tiedFields: [:])
        guard ziddiyat.local == saved, ziddiyat.remote == office, ziddiyat.result == kept,
            ziddiyat.resolution == merged
        else {
            throw StoryFailure(
                "The record of \(saved.nomi) says \(ziddiyat.resolution) and kept "
                    + "\(ziddiyat.result.map(describe) ?? "nothing"), not \(describe(kept))")
        }
        guard kept.narxi == saved.narxi, kept.tavsifi == office.tavsifi else {
            throw StoryFailure("\(describe(kept)) lost the device's price or the office's description")
        }
        print("Both edits were kept: this device's narxi and the office's tavsifi.")
        guard await viewModel.tasdiqlash(ziddiyat) else {
            throw StoryFailure("tasdiqlash(\(saved.nomi)'s conflict) failed: \(viewModel.xatoXabari ?? "")")
        }
        let stillKept = try await products.snapshot(MahsulotlarViewModel.query).conflicts
        guard viewModel.ziddiyatlar.isEmpty, stillKept.isEmpty else {
            throw StoryFailure(
                "After tasdiqlash() the screen lists \(viewModel.ziddiyatlar.count) conflicts and the repository "
                    + "keeps \(stillKept.count)")
        }
        print("tasdiqlash(): the user has seen it; ziddiyatlar: 0, and the repository keeps none.")
    }

    /// (f) A price the API refuses: the user saves 0 so'm by mistake; the automatic sync sends
    /// it and the simulated API answers as FastAPI does, `422` with the field's message; the
    /// screen shows the message beside the price. The user saves the right price, which
    /// replaces the refused change and goes out. With `--api` the step is skipped: a real
    /// API has rules of its own.
    ///
    /// - Throws: ``StoryFailure`` when the API takes the mistake, the screen does not show its
    ///   message beside the field, or the fix does not reach the API.
    func refuseThenFix(_ viewModel: MahsulotlarViewModel) async throws {
        Console.heading("A price the API refuses")
        guard let validation = remote.validation else {
            print(
                "Skipped with --api: the simulated API refuses a price of 0 as a FastAPI app does; "
                    + "\(remote.origin) has rules of its own.")
            return
        }
        guard let before = try await products.local.fetch(id: 2) else {
            throw StoryFailure("\(files.localName) has no product 2 to change")
        }
        var mistake = before
        mistake.narxi = 0
        guard await viewModel.saqlash(mistake) else {
            throw StoryFailure(
                "saqlash(\(mistake.nomi) at \(price(mistake))) failed: \(viewModel.xatoXabari ?? "")")
        }
        print(
            "saqlash(\(mistake.nomi) at \(price(mistake))): the device took it; the automatic sync sends it.")
        try await products.waitUntilSent()
        await viewModel.yuklash()
        guard let refusal = viewModel.radEtilganlar[mistake.id] else {
            throw StoryFailure(
                "The API took \(price(mistake)) for \(mistake.nomi); it should have refused it")
        }
        print(
            "The API refused it: HTTP \(refusal.httpStatus.map(String.init) ?? "without a status"), "
                + "\(validation.format.framework)'s field errors, read by HTTPRepository.")
        print("The form for \(mistake.nomi), the API's message beside its field:")
        let errors = viewModel.maydonXatolari(mistake.id)
        form(mistake, errors: errors)
        show(viewModel)
        let expected = Dictionary(
            validation.broken(by: mistake).map { ($0.field, [$0.message]) }, uniquingKeysWith: +)
        let onAPI = try await remote.direct.fetch(id: mistake.id)
        guard refusal.httpStatus == validation.format.status, errors == expected,
            viewModel.kutilayotganlar == 0,
            onAPI == before
        else {
            throw StoryFailure(
                "The refusal of \(mistake.nomi) reads HTTP \(refusal.httpStatus ?? 0) with \(errors), "
                    + "\(viewModel.kutilayotganlar) changes waiting, and the API has \(onAPI.map(price) ?? "no copy"); "
                    + "expected HTTP \(validation.format.status) with \(expected), none waiting, \(price(before))"
            )
        }
        print(
            "A refused save waits for the user, not the network, so nothing counts as waiting; "
                + "the API still has \(price(before)) for \(before.nomi).")
        try await fix(mistake, to: 16_000, viewModel)
    }

    /// The user's fix: saves `mistake` at `narxi`, which replaces its refused change; the
    /// automatic sync sends it, and the screen shows no refusal.
    ///
    /// - Throws: ``StoryFailure`` when the fix does not reach the API, or a refusal is still
    ///   shown.
    private func fix(_ mistake: Mahsulot, to narxi: Double, _ viewModel: MahsulotlarViewModel) async throws {
        var fixed = mistake
        fixed.narxi = narxi
        guard await viewModel.saqlash(fixed) else {
            throw StoryFailure(
                "saqlash(\(fixed.nomi) at \(price(fixed))) failed: \(viewModel.xatoXabari ?? "")")
        }
        print(
            "The user fixes the price: saqlash(\(fixed.nomi) at \(price(fixed))) replaces the refused change."
        )
        try await products.waitUntilSent()
        await viewModel.yuklash()
        let onAPI = try await remote.direct.fetch(id: fixed.id)
        guard onAPI == fixed, viewModel.radEtilganlar.isEmpty, viewModel.maydonXatolari(fixed.id).isEmpty,
            viewModel.kutilayotganlar == 0
        else {
            throw StoryFailure(
                "After the fix the API has \(onAPI.map(price) ?? "no copy") for \(fixed.nomi), and the screen shows "
                    + "\(viewModel.radEtilganlar.count) refused and \(viewModel.kutilayotganlar) waiting")
        }
        print(
            "The fixed price reached the API: it has \(price(fixed)) for \(fixed.nomi); "
                + "radEtilganlar: 0, no field errors.")
    }

    /// Prints `mahsulot` as a form, one field a line, with `errors` (by field) beside theirs.
    private func form(_ mahsulot: Mahsulot, errors: [String: [String]]) {
        Console.form(
            [("nomi", mahsulot.nomi), ("narxi", price(mahsulot)), ("tavsifi", mahsulot.tavsifi)],
            errors: errors,
            nameWidth: 9, valueWidth: 12)
    }

    private func show(_ viewModel: MahsulotlarViewModel) {
        print(
            "mahsulotlar: \(viewModel.mahsulotlar.count), yuklanmoqda: \(viewModel.yuklanmoqda), "
                + "xatoXabari: \(viewModel.xatoXabari ?? "nil"), kutilayotganlar: \(viewModel.kutilayotganlar), "
                + "ziddiyatlar: \(viewModel.ziddiyatlar.count), radEtilganlar: \(viewModel.radEtilganlar.count)"
        )
    }

    private func describe(_ mahsulot: Mahsulot) -> String {
        let name = mahsulot.nomi.padding(toLength: 12, withPad: " ", startingAt: 0)
        let amount = price(mahsulot)
        let padded = String(repeating: " ", count: max(0, 12 - amount.count)) + amount
        return "#\(mahsulot.id) \(name) \(padded)  \(mahsulot.tavsifi)"
    }

    private func price(_ mahsulot: Mahsulot) -> String {
        "\(Console.grouped(Int(mahsulot.narxi.rounded()))) so'm"
    }
}
