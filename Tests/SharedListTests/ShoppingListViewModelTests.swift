import ExampleSupport
import Repositories
import RepositoriesTestSupport
import RepositoriesTesting
import Testing

@testable import SharedList

/// One device's screen over the offline-first stack, the API a switched in-memory store.
@MainActor @Suite struct ShoppingListViewModelTests {
    private let directory: TemporaryDirectory
    private let server = InMemoryRepository(ShoppingItem.list)
    private let network = NetworkSwitch()
    private let unreadable = RepositoryError.unavailable("The test disk is unreadable")

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// A screen over the stack with `local` as the device's store and a fresh outbox, over
    /// the switched test server.
    private func screen(
        local: some Repository<ShoppingItem, Int> = InMemoryRepository<ShoppingItem>()
    ) async throws -> ShoppingListViewModel {
        try await screen(
            local: local, api: SwitchedRepository(server, network: network, name: "The test API"))
    }

    /// A screen over the stack with `local` as the device's store and a fresh outbox, over
    /// `api`, settling conflicts as the list does.
    private func screen(
        local: some Repository<ShoppingItem, Int> = InMemoryRepository<ShoppingItem>(),
        api: some Repository<ShoppingItem, Int>
    ) async throws -> ShoppingListViewModel {
        let outbox = try await Outbox<ShoppingItem>(fileURL: directory.file("items.outbox"))
        return ShoppingListViewModel(
            repository: api.offlineFirst(
                local: local, outbox: outbox, conflicts: ShoppingItem.conflictPolicy, automaticSync: nil))
    }

    @Test func aSyncBringsTheListInAndShowsNothingWaiting() async throws {
        let screen = try await screen()

        #expect(await screen.sync())

        #expect(screen.items == ShoppingItem.list)
        #expect(screen.waiting == 0)
        #expect(screen.errorMessage == nil)
    }

    @Test func anUpdateOfflineStartsFromTheScreensCopyAndWaits() async throws {
        let screen = try await screen()
        await screen.sync()
        network.goOffline()

        #expect(await screen.update(3) { $0.quantity = 8 })

        #expect(screen.items[2] == ShoppingItem(id: 3, name: "Apples", quantity: 8))
        #expect(screen.waiting == 1)
        #expect(try await server.fetch(id: 3) == ShoppingItem.list[2])
    }

    @Test func aSyncOfflineSaysWhyAndKeepsTheChangesWaiting() async throws {
        let screen = try await screen()
        await screen.sync()
        network.goOffline()
        await screen.update(1) { $0.isBought = true }

        #expect(await screen.sync() == false)

        #expect(
            screen.errorMessage?.hasPrefix("Could not sync. unavailable: The test API cannot be reached")
                == true)
        #expect(screen.waiting == 1)
        network.goOnline()
        #expect(await screen.sync())
        #expect(screen.waiting == 0)
        #expect(screen.errorMessage == nil)
        #expect(try await server.fetch(id: 1)?.isBought == true)
    }

    @Test func aConflictTheSyncSettledIsListedUntilAcknowledged() async throws {
        let screen = try await screen()
        await screen.sync()
        network.goOffline()
        await screen.update(2) { $0.note = "sliced" }
        try await server.save(ShoppingItem(id: 2, name: "Bread", quantity: 2, note: "rye"))
        network.goOnline()

        #expect(await screen.sync())

        let conflict = try #require(screen.conflicts.first)
        #expect(screen.conflicts.count == 1)
        #expect(conflict.entityID == 2)
        #expect(conflict.local?.note == "sliced")
        #expect(conflict.result?.note == "rye")
        #expect(screen.items[1].note == "rye")
        #expect(await screen.acknowledge(conflict))
        #expect(screen.conflicts.isEmpty)
        await screen.sync()
        #expect(screen.conflicts.isEmpty, "an acknowledged conflict is not listed again")
    }

    @Test func aRefusedChangeShowsItsMessagesByFieldUntilADiscardPutsTheAPIsVersionBack() async throws {
        let remote = ExampleRemote(
            options: ExampleOptions(), resource: "items", seed: ShoppingItem.list,
            validation: ShoppingItem.apiValidation)
        let screen = try await screen(api: remote.repository)
        await screen.sync()
        await screen.update(3) { $0.quantity = 0 }

        #expect(await screen.sync(), "a refusal is the change's, not the sync's failure")

        #expect(screen.refusals.keys.sorted() == [3])
        #expect(screen.refusals[3]?.httpStatus == 400)
        #expect(
            screen.fieldErrors(of: 3) == ["quantity": ["Ensure this value is greater than or equal to 1."]])
        #expect(screen.fieldErrors(of: 1).isEmpty)
        #expect(screen.waiting == 0)
        #expect(screen.items[2].quantity == 0, "the device keeps the refused change until the user decides")

        #expect(await screen.discard(3))

        #expect(screen.refusals.isEmpty)
        #expect(screen.items == ShoppingItem.list)
        #expect(try await remote.server?.fetchAll() == ShoppingItem.list)
    }

    @Test func updatingAnItemTheScreenLacksFailsWithoutAWrite() async throws {
        let screen = try await screen()

        #expect(await screen.update(9) { $0.quantity = 1 } == false)

        #expect(screen.errorMessage == "The list has no item 9.")
        await screen.load()
        #expect(screen.waiting == 0)
        #expect(screen.items.isEmpty)
    }

    @Test func anAddTheDeviceRefusesShowsTheErrorAndAddsNothing() async throws {
        let local = FaultInjectingRepository(InMemoryRepository<ShoppingItem>())
        local.failNext(of: .saveContentsOf, with: unreadable)
        let screen = try await screen(local: local)

        #expect(await screen.add(ShoppingItem.list) == false)

        #expect(
            screen.errorMessage?.hasPrefix("Could not add 3 items. unavailable: The test disk is unreadable")
                == true)
        #expect(screen.items.isEmpty)
        #expect(screen.waiting == 0)
    }
}
