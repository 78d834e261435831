import ExampleSupport
import Foundation
import Observation
import Repositories

/// One device's screen of the shared list: the items, how many of this device's changes
/// wait to reach the API, the conflicts its syncs settled, the changes the API refused with
/// its messages by field, and the last intent's error. It holds `any SyncingRepository`, so
/// it does not spell the stack's type.
///
/// Each intent ends by reading one snapshot of the device's state, so what the screen
/// shows after an intent is the state after it.
@MainActor @Observable final class ShoppingListViewModel {
    /// The items on screen, by ID.
    private(set) var items: [ShoppingItem] = []
    /// This device's changes not on the API yet: the screen's "2 changes waiting".
    private(set) var waiting = 0
    /// What went wrong with the last intent; `nil` after a success.
    private(set) var errorMessage: String?
    /// The conflicts this device's syncs settled that the user has not acknowledged, oldest
    /// first: for each, the three versions, what was kept, and the rule's one line ("merged
    /// field by field: note changed on both, the remote's kept").
    private(set) var conflicts: [SyncConflict<ShoppingItem>] = []
    /// The changes the API refused, by item ID, each with the API's error: they wait for the
    /// user to fix or ``discard(_:)`` them, not for the network.
    private(set) var refusals: [Int: RepositoryError] = [:]

    private let repository: any SyncingRepository<ShoppingItem, Int>

    /// What the screen lists: every item, by ID.
    static let query = Query<ShoppingItem>().sorted(by: \.id)

    /// A screen over `repository`.
    init(repository: any SyncingRepository<ShoppingItem, Int>) {
        self.repository = repository
    }

    /// Shows what the device holds now.
    func load() async {
        do {
            let snapshot = try await repository.snapshot(Self.query)
            items = snapshot.entities
            waiting = snapshot.pendingIDs.count
            conflicts = snapshot.conflicts
            refusals = snapshot.rejections
            errorMessage = nil
        } catch {
            errorMessage = "Could not read the list. \(error)"
        }
    }

    /// Adds `newItems` to the list, as one write.
    ///
    /// - Returns: whether the device took them; when not, ``errorMessage`` says why.
    @discardableResult
    func add(_ newItems: [ShoppingItem]) async -> Bool {
        await perform("add \(newItems.count) items") { try await repository.save(contentsOf: newItems) }
    }

    /// Changes the item `id` as `change` says, starting from the screen's copy, and saves it.
    ///
    /// - Returns: whether the device took the change; when not (or when the screen has no
    ///   such item), ``errorMessage`` says why.
    @discardableResult
    func update(_ id: Int, _ change: (inout ShoppingItem) -> Void) async -> Bool {
        guard var item = items.first(where: { $0.id == id }) else {
            errorMessage = "The list has no item \(id)."
            return false
        }
        change(&item)
        let changed = item
        return await perform("change \(item.name)") { try await repository.save(changed) }
    }

    /// Sends this device's changes and brings the other device's in.
    ///
    /// - Returns: whether the sync went through; when not, ``errorMessage`` says why and
    ///   the changes keep waiting.
    @discardableResult
    func sync() async -> Bool {
        await perform("sync") { try await repository.sync() }
    }

    /// The API's messages for item `id`'s refused change, by field (`quantity`: "Ensure this
    /// value is greater than or equal to 1."), to show beside each field; empty when the API
    /// refused nothing of it.
    func fieldErrors(of id: Int) -> [String: [String]] {
        refusals[id]?.fieldErrors ?? [:]
    }

    /// Forgets `conflict`: the user has read it.
    ///
    /// - Returns: whether it was forgotten; when not, ``errorMessage`` says why and it stays
    ///   listed.
    @discardableResult
    func acknowledge(_ conflict: SyncConflict<ShoppingItem>) async -> Bool {
        await perform("acknowledge the conflict") { try await repository.acknowledge(conflict: conflict) }
    }

    /// Drops this device's change of item `id`, refused or waiting, and puts back the API's
    /// version (which needs the API).
    ///
    /// - Returns: whether the change was dropped; when not, ``errorMessage`` says why and it
    ///   stays.
    @discardableResult
    func discard(_ id: Int) async -> Bool {
        await perform("discard the change") { try await repository.discard(id: id) }
    }

    /// Runs `write`, then shows the device's state; a failure becomes ``errorMessage``.
    private func perform(_ action: String, write: () async throws -> Void) async -> Bool {
        do {
            try await write()
        } catch {
            await load()
            errorMessage = "Could not \(action). \(error)"
            return false
        }
        await load()
        return errorMessage == nil
    }
}
