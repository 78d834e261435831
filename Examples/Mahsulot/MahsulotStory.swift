import ExampleSupport
import Foundation
import Repositories

/// The run, step by step: builds the article's stack over the example's remote and a file
/// in the workspace, drives the view model, and prints what happened at each tier.
@MainActor struct MahsulotStory {
    /// The local store's file name inside the workspace.
    static let fileName = "mahsulotlar.journal"

    private let options: ExampleOptions
    /// The simulated API (or `--api URL`), behind its network switch.
    let remote: ExampleRemote<Mahsulot>
    /// What the local file failed to take, checked after each step.
    let mirrorFailures = MirrorFailures()
    /// The article's stack: the API first, the file behind it.
    let products:
        RemoteFirstRepository<
            SwitchedRepository<AnyRepository<Mahsulot, Int>>, FileRepository<Mahsulot>
        >

    /// Opens the stack: the simulated API (or `--api URL`), falling back to the file.
    init(options: ExampleOptions, workspace: ExampleWorkspace) async throws {
        self.options = options
        remote = ExampleRemote(options: options, resource: "mahsulotlar", seed: Mahsulot.namunalar)
        products = try await MahsulotRepository.make(
            remote: remote.repository, fileURL: workspace.file(Self.fileName),
            onTierFailure: mirrorFailures.record)
    }

    /// Closes the local store.
    func close() async throws {
        try await products.local.close()
    }

    /// Prints the whole story.
    func tell() async throws {
        print("Mahsulot: products from \(remote.origin), mirrored into \(Self.fileName)")
        let viewModel = MahsulotlarViewModel(repository: products)
        if options.offline {
            try await loadWithNothingSaved(viewModel)
            remote.network.goOnline()
            print("The network is back.")
        }
        try await loadOnline(viewModel)
        try await loadOffline(viewModel)
        try await saveOffline()
    }

    /// The article's step 4: offline, and the local store empty, so the API's error is what
    /// the user sees.
    private func loadWithNothingSaved(_ viewModel: MahsulotlarViewModel) async throws {
        Console.heading("Offline from the start")
        print("The local store holds \(try await products.local.count()) products.")
        await viewModel.yuklash()
        try mirrorFailures.check(Self.fileName)
        show(viewModel)
        if viewModel.xatoXabari != nil {
            print("Lokal ham bo'sh: nothing to fall back on, so the API's error reaches the screen.")
        }
    }

    /// (a) Online: the API answers, and its answer is mirrored into the file.
    ///
    /// - Throws: ``StoryFailure`` when the file did not take the API's answer.
    func loadOnline(_ viewModel: MahsulotlarViewModel) async throws {
        Console.heading("Online: yuklash()")
        let before = remote.network.requests
        await viewModel.yuklash()
        try mirrorFailures.check(Self.fileName)
        show(viewModel)
        for mahsulot in viewModel.mahsulotlar { print("  " + describe(mahsulot)) }
        let answered = remote.network.requests - before
        print(
            "The API answered \(viewModel.mahsulotlar.count) products (\(requests(answered))); "
                + "the mirror \(Self.fileName) holds \(try await products.local.count()).")
    }

    /// (b) Offline: the view model gets the same products; the stack's stream says they are
    /// the local store's.
    private func loadOffline(_ viewModel: MahsulotlarViewModel) async throws {
        Console.heading("Offline: yuklash() again")
        remote.network.goOffline()
        let refused = remote.network.refused
        await viewModel.yuklash()
        show(viewModel)
        print("The API refused \(requests(remote.network.refused - refused)); the view model cannot tell.")
        print("The stack can: valuesAll() tags each answer with its origin.")
        do {
            for try await answer in products.valuesAll() {
                let age = answer.age.map { " (refreshed \(Console.format($0)) ago)" } ?? ""
                let names = answer.value.map(\.nomi).joined(separator: ", ")
                print("  origin \(answer.origin): \(answer.value.count) products, \(names)\(age)")
            }
        } catch let error as RepositoryError {
            print("  then the API threw \(error.code), so the local products are what the screen shows.")
        }
        try mirrorFailures.check(Self.fileName)
    }

    /// (c) Offline, a save fails with a typed error and writes nothing anywhere.
    ///
    /// - Throws: ``StoryFailure`` when the save goes through or leaves a trace.
    func saveOffline() async throws {
        Console.heading("Offline: save a new price")
        guard let before = try await products.local.fetch(id: 1) else {
            throw StoryFailure(
                "\(Self.fileName) has no product 1 to change: the online load did not mirror it")
        }
        let localCount = try await products.local.count()
        let serverCount = try await remote.server?.count()
        var changed = before
        changed.narxi += 500
        do {
            try await products.save(changed)
            throw StoryFailure(
                "save(\(changed.nomi) at \(price(changed))) went through, which an offline API should not allow"
            )
        } catch let error as RepositoryError where error.code == .unavailable {
            print("save(\(changed.nomi) at \(price(changed))) threw RepositoryError.\(error.code):")
            print("  \(error)")
        }
        try await verifyNothingHalfWritten(before, localCount: localCount, serverCount: serverCount)
    }

    /// Checks that a failed save of a change to `before` left both tiers as they were: the
    /// same copy and `localCount` products in the file, and (with the simulated API) the
    /// same copy and `serverCount` products on the server.
    ///
    /// - Throws: ``StoryFailure`` naming the tier that changed.
    func verifyNothingHalfWritten(_ before: Mahsulot, localCount: Int, serverCount: Int?) async throws {
        let local = try await products.local.fetch(id: before.id)
        let count = try await products.local.count()
        guard local == before, count == localCount else {
            throw StoryFailure(
                "The failed save changed \(Self.fileName): it has \(local.map(price) ?? "no copy") for "
                    + "\(before.nomi) and \(count) products, not \(price(before)) and \(localCount)")
        }
        print(
            "Nothing half-written: the local store has \(price(before)) for \(before.nomi), \(count) products."
        )
        guard let server = remote.server, let serverCount else { return }
        let stored = try await server.fetch(id: before.id)
        let storedCount = try await server.count()
        guard stored == before, storedCount == serverCount else {
            throw StoryFailure(
                "The failed save changed the API: it has \(stored.map(price) ?? "no copy") for \(before.nomi) "
                    + "and \(storedCount) products, not \(price(before)) and \(serverCount)")
        }
        print("The API still has \(price(before)) for \(before.nomi), \(storedCount) products.")
    }

    private func show(_ viewModel: MahsulotlarViewModel) {
        print(
            "mahsulotlar: \(viewModel.mahsulotlar.count), yuklanmoqda: \(viewModel.yuklanmoqda), "
                + "xatoXabari: \(viewModel.xatoXabari ?? "nil")")
    }

    private func describe(_ mahsulot: Mahsulot) -> String {
        let name = mahsulot.nomi.padding(toLength: 12, withPad: " ", startingAt: 0)
        let amount = price(mahsulot)
        let padded = String(repeating: " ", count: max(0, 12 - amount.count)) + amount
        return "#\(mahsulot.id) \(name) \(padded)  \(mahsulot.tavsifi)"
    }

    private func requests(_ count: Int) -> String {
        count == 1 ? "1 request" : "\(count) requests"
    }

    private func price(_ mahsulot: Mahsulot) -> String {
        "\(Console.grouped(Int(mahsulot.narxi.rounded()))) so'm"
    }
}
