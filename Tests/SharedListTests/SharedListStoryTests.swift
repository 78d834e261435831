import ExampleSupport
import Repositories
import Testing

@testable import SharedList

/// The story checks what it claims: it stops with a `StoryFailure` instead of printing a
/// settled list that is not on both devices and the API, an edit as accounted for when it is
/// not, or a refusal the API did not make.
@MainActor @Suite struct SharedListStoryTests {
    private let workspace: ExampleWorkspace

    init() throws {
        workspace = try ExampleWorkspace(options: ExampleOptions(), example: "SharedListTests")
    }

    private func withStory(offline: Bool = false, _ body: (SharedListStory) async throws -> Void) async throws
    {
        var options = ExampleOptions()
        options.offline = offline
        try await withCleanup {
            let story = try await SharedListStory(options: options, workspace: workspace)
            try await withCleanup {
                try await body(story)
            } cleanup: {
                try await story.close()
            }
        } cleanup: {
            try workspace.close()
        }
    }

    /// A story whose API holds `list`, both devices synced with it.
    private func withSyncedStory(
        apiHolds list: [ShoppingItem], _ body: (SharedListStory) async throws -> Void
    ) async throws {
        try await withStory { story in
            try await #require(story.remote.server).save(contentsOf: list)
            #expect(await story.phone.screen.sync())
            #expect(await story.laptop.screen.sync())
            try await body(story)
        }
    }

    @Test(arguments: [false, true]) func theWholeStoryHoldsOnlineAndOffline(offline: Bool) async throws {
        try await withStory(offline: offline) { story in
            try await story.tell()

            #expect(try await #require(story.remote.server).fetchAll() == SharedListStory.merged)
            for device in [story.phone, story.laptop] {
                #expect(
                    try await device.files.local.fetch(ShoppingListViewModel.query) == SharedListStory.merged)
                #expect(try await device.files.outbox.changes().isEmpty)
                let snapshot = try await device.list.snapshot(ShoppingListViewModel.query)
                #expect(snapshot.conflicts.isEmpty, "\(device.name): every record acknowledged")
                #expect(snapshot.rejections.isEmpty, "\(device.name): the refused change discarded")
            }
        }
    }

    /// With the API holding the settled list but no device keeping a record, the edits that
    /// gave way are accounted for by nothing.
    @Test func anEditNeitherKeptNorNamedStopsTheAccount() async throws {
        try await withSyncedStory(apiHolds: SharedListStory.merged) { story in
            let failure = await #expect(throws: StoryFailure.self) { try await story.accountForEveryEdit() }
            #expect(
                failure?.description
                    == "phone's edit Apples ×6 -> ×8 is neither in the API's list nor named by a conflict record"
            )
        }
    }

    @Test func theRefusalIsShownBesideTheQuantityThenTheDiscardPutsTheAPIsBreadBack() async throws {
        try await withSyncedStory(apiHolds: SharedListStory.merged) { story in
            try await story.refuseThenDiscard()

            #expect(try await story.remote.server?.fetch(id: 2) == SharedListStory.merged[1])
            #expect(story.phone.screen.items == SharedListStory.merged)
            #expect(story.phone.screen.refusals.isEmpty)
            #expect(try await story.phone.files.outbox.changes().isEmpty)
        }
    }

    @Test func theCheckPassesWhenBothDevicesAndTheAPIHoldTheMergedList() async throws {
        try await withSyncedStory(apiHolds: SharedListStory.merged) { story in
            try await story.verifyMerged()
        }
    }

    @Test func aListThatIsNotTheMergeStopsTheCheck() async throws {
        try await withSyncedStory(apiHolds: ShoppingItem.list) { story in
            let failure = await #expect(throws: StoryFailure.self) { try await story.verifyMerged() }
            #expect(failure?.description.contains("not the merge of both devices' edits") == true)
        }
    }

    @Test func aDeviceThatDiffersFromTheAPIStopsTheCheck() async throws {
        try await withSyncedStory(apiHolds: SharedListStory.merged) { story in
            try await story.laptop.files.local.save(ShoppingItem(id: 3, name: "Apples", quantity: 6))
            let failure = await #expect(throws: StoryFailure.self) { try await story.verifyMerged() }
            #expect(failure?.description.contains("laptop holds") == true)
        }
    }

    @Test func aChangeStillWaitingStopsTheCheck() async throws {
        try await withSyncedStory(apiHolds: SharedListStory.merged) { story in
            story.remote.network.goOffline()
            // Saves the note Bread already has: the lists stay equal, and a change waits.
            #expect(await story.phone.screen.update(2) { $0.note = "rye" })
            let failure = await #expect(throws: StoryFailure.self) { try await story.verifyMerged() }
            #expect(failure?.description.contains("phone's items.outbox still holds 1 change") == true)
        }
    }
}
