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

    /// A screen over the stack with `local` as the device's store and a fresh outbox.
    private func screen(
        local: some Repository<ShoppingItem, Int> = InMemoryRepository<ShoppingItem>()
    ) async throws -> ShoppingListViewModel {
        let outbox = try await Outbox<ShoppingItem>(fileURL: directory.file("items.outbox"))
        let api = SwitchedRepository(server, network: network, name: "The test API")
        return ShoppingListViewModel(
            repository: api.offlineFirst(
                local: local, outbox: outbox, conflicts: .lastWriterWins, automaticSync: nil))
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
