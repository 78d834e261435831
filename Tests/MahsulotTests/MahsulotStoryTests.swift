import ExampleSupport
import Repositories
import Testing

@testable import Mahsulot

/// The story checks what it claims: it stops with a `StoryFailure` instead of printing a
/// success that did not happen.
@MainActor @Suite struct MahsulotStoryTests {
    private let workspace: ExampleWorkspace
    private let newPrice: Mahsulot = {
        var changed = Mahsulot.namunalar[0]
        changed.narxi = 4_500
        return changed
    }()

    init() throws {
        workspace = try ExampleWorkspace(options: ExampleOptions(), example: "MahsulotTests")
    }

    /// Runs `body` with a story over a fresh workspace; `automaticSync: nil` unless told, so
    /// the test decides when a change goes out.
    private func withStory(
        offline: Bool = false, automaticSync: AutomaticSync? = nil,
        _ body: (MahsulotStory) async throws -> Void
    ) async throws {
        var options = ExampleOptions()
        options.offline = offline
        try await withCleanup {
            let story = try await MahsulotStory(
                options: options, workspace: workspace, automaticSync: automaticSync)
            try await withCleanup {
                try await body(story)
            } cleanup: {
                try await story.close()
            }
        } cleanup: {
            try workspace.close()
        }
    }

    /// The story's stack after an online load and an offline save of the new price,
    /// without a sync.
    private func savedOffline(_ story: MahsulotStory) async throws {
        try await story.loadOnline(MahsulotlarViewModel(repository: story.products))
        story.remote.network.goOffline()
        try await story.products.save(newPrice)
    }

    /// The new price merged with the office's description: what the API and the device keep.
    private var merged: Mahsulot {
        var merged = newPrice
        merged.tavsifi = MahsulotStory.officeDescription
        return merged
    }

    /// The office's change on the API: Non's description, at the old price.
    private var officesNon: Mahsulot {
        var office = Mahsulot.namunalar[0]
        office.tavsifi = MahsulotStory.officeDescription
        return office
    }

    @Test(arguments: [false, true]) func theWholeStoryHoldsOnlineAndOffline(offline: Bool) async throws {
        try await withStory(offline: offline, automaticSync: MahsulotRepository.automaticSync) { story in
            try await story.tell()
            let server = try #require(story.remote.server)
            #expect(try await server.fetch(id: 1) == merged)
            #expect(try await server.fetch(id: 2)?.narxi == 16_000, "the fixed price, not the refused 0")
            #expect(try await story.products.outbox.changes().isEmpty)
            try await story.products.sync()  // waits for an automatic sync that may still be pulling
            #expect(try await story.files.local.fetchAll().count == Mahsulot.namunalar.count)
            #expect(try await story.files.local.fetch(id: 1) == merged)
            let snapshot = try await story.products.snapshot(MahsulotlarViewModel.query)
            #expect(snapshot.conflicts.isEmpty, "the user saw the conflict")
            #expect(snapshot.rejections.isEmpty, "the fix replaced the refused save")
        }
    }

    @Test func theConflictCheckPassesWhenBothEditsAreKeptThenTheUserSeesIt() async throws {
        try await withStory { story in
            let viewModel = try await afterTheConflict(story)
            #expect(viewModel.ziddiyatlar.count == 1)

            try await story.showTheConflict(viewModel, saved: newPrice, office: officesNon, kept: merged)

            #expect(viewModel.ziddiyatlar.isEmpty)
            #expect(try await story.products.snapshot(MahsulotlarViewModel.query).conflicts.isEmpty)
        }
    }

    @Test func aConflictThatLostAnEditStopsTheConflictCheck() async throws {
        try await withStory { story in
            let viewModel = try await afterTheConflict(story)
            let failure = await #expect(throws: StoryFailure.self) {
                // As if the office's description had been overwritten by the device's save.
                try await story.showTheConflict(
                    viewModel, saved: newPrice, office: officesNon, kept: newPrice)
            }
            #expect(failure?.description.contains("The record of Non says merged field by field") == true)
            #expect(viewModel.ziddiyatlar.count == 1, "a conflict the check refused is not marked seen")
        }
    }

    @Test func noConflictOnTheScreenStopsTheConflictCheck() async throws {
        try await withStory { story in
            let viewModel = MahsulotlarViewModel(repository: story.products)
            try await story.loadOnline(viewModel)
            let failure = await #expect(throws: StoryFailure.self) {
                try await story.showTheConflict(viewModel, saved: newPrice, office: officesNon, kept: merged)
            }
            #expect(
                failure?.description.contains("The screen lists the conflicts of [], not the one of Non")
                    == true)
        }
    }

    @Test func aRefusedPriceIsShownBesideItsFieldThenTheFixReachesTheAPI() async throws {
        try await withStory(automaticSync: MahsulotRepository.automaticSync) { story in
            let viewModel = MahsulotlarViewModel(repository: story.products)
            try await story.loadOnline(viewModel)

            try await story.refuseThenFix(viewModel)

            #expect(try await story.remote.server?.fetch(id: 2)?.narxi == 16_000)
            #expect(viewModel.radEtilganlar.isEmpty)
            #expect(viewModel.kutilayotganlar == 0)
        }
    }

    /// A view model after the story's steps up to the conflict: online, the new price saved
    /// offline, the office's description on the API, then one sync back online.
    private func afterTheConflict(_ story: MahsulotStory) async throws -> MahsulotlarViewModel {
        let viewModel = MahsulotlarViewModel(repository: story.products)
        try await story.loadOnline(viewModel)
        story.remote.network.goOffline()
        _ = try await story.saveOffline(viewModel)
        #expect(try await story.changeOnTheAPIMeanwhile(1) == officesNon)
        story.remote.network.goOnline()
        await viewModel.yuklash()
        return viewModel
    }

    @Test func theChecksPassWhenTheChangeWaitsThenArrives() async throws {
        try await withStory { story in
            try await story.loadOnline(MahsulotlarViewModel(repository: story.products))
            story.remote.network.goOffline()
            let saved = try await story.saveOffline(MahsulotlarViewModel(repository: story.products))
            #expect(saved == newPrice)
            story.remote.network.goOnline()
            try await story.products.sync()
            try await story.verifyArrived(newPrice)
        }
    }

    @Test func aSaveThatReachedTheAPIAlreadyStopsTheWaitingCheck() async throws {
        try await withStory { story in
            try await savedOffline(story)
            try await #require(story.remote.server).save(newPrice)
            let failure = await #expect(throws: StoryFailure.self) {
                try await story.verifyWaiting(newPrice, apiHas: Mahsulot.namunalar[0])
            }
            #expect(failure?.description.contains("The API has 4,500 so'm for Non while offline") == true)
        }
    }

    @Test func aChangeMissingFromTheOutboxStopsTheWaitingCheck() async throws {
        try await withStory { story in
            try await story.loadOnline(MahsulotlarViewModel(repository: story.products))
            try await story.files.local.save(newPrice)  // past the outbox
            let failure = await #expect(throws: StoryFailure.self) {
                try await story.verifyWaiting(newPrice, apiHas: Mahsulot.namunalar[0])
            }
            #expect(
                failure?.description.contains("mahsulotlar.outbox should hold the save of Non alone") == true)
        }
    }

    @Test func aChangeThatDidNotReachTheAPIStopsTheArrivalCheck() async throws {
        try await withStory { story in
            try await savedOffline(story)
            let failure = await #expect(throws: StoryFailure.self) { try await story.verifyArrived(newPrice) }
            #expect(failure?.description.contains("The API has 4,000 so'm for Non") == true)
        }
    }

    @Test func aChangeStillInTheOutboxStopsTheArrivalCheck() async throws {
        try await withStory { story in
            try await savedOffline(story)
            try await #require(story.remote.server).save(newPrice)
            let failure = await #expect(throws: StoryFailure.self) { try await story.verifyArrived(newPrice) }
            #expect(failure?.description.contains("mahsulotlar.outbox still holds 1 change") == true)
        }
    }

    @Test func aFileThatCannotTakeTheSyncStopsTheStory() async throws {
        try await withStory { story in
            try await story.files.local.close()
            let failure = await #expect(throws: StoryFailure.self) {
                try await story.loadOnline(MahsulotlarViewModel(repository: story.products))
            }
            #expect(failure?.description.contains("The online sync failed") == true)
        }
    }
}
