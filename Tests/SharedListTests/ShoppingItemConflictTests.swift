import ExampleSupport
import Repositories
import RepositoriesTestSupport
import Testing

@testable import SharedList

/// The list's conflict policy, run by a real sync: this device's edit against the API's,
/// both made on `base`.
@Suite struct ShoppingItemConflictTests {
    private let base = ShoppingItem(id: 1, name: "Milk", quantity: 1)

    private func changed(_ change: (inout ShoppingItem) -> Void) -> ShoppingItem {
        var item = base
        change(&item)
        return item
    }

    /// Syncs `mine`, saved on this device over `base` (or with no base), against an API that
    /// meanwhile holds `theirs`; returns what the API ends with and the record of the conflict.
    private func settle(base: ShoppingItem?, mine: ShoppingItem, theirs: ShoppingItem) async throws -> (
        ShoppingItem?, SyncConflict<ShoppingItem>?
    ) {
        let directory = try TemporaryDirectory()
        let api = InMemoryRepository<ShoppingItem>(base.map { [$0] } ?? [])
        let outbox = try await Outbox<ShoppingItem>(fileURL: directory.file("items.outbox"))
        let list = api.offlineFirst(
            local: InMemoryRepository<ShoppingItem>(), outbox: outbox, conflicts: ShoppingItem.conflictPolicy,
            automaticSync: nil)
        if base != nil { try await list.sync() }
        try await list.save(mine)
        try await api.save(theirs)
        try await list.sync()
        let conflicts = try await list.snapshot(Query()).conflicts
        #expect(conflicts.count == 1)
        try await outbox.close()
        return (try await api.fetch(id: mine.id), conflicts.first)
    }

    @Test func eachSideKeepsTheFieldItAloneChanged() async throws {
        let (kept, record) = try await settle(
            base: base, mine: changed { $0.isBought = true }, theirs: changed { $0.quantity = 2 })

        #expect(kept == ShoppingItem(id: 1, name: "Milk", quantity: 2, isBought: true))
        #expect(
            record?.resolution.description
                == "merged field by field: isBought from this device; quantity from the remote")
    }

    @Test func bothChangingTheQuantityKeepsTheLargerWhicheverSyncsFirst() async throws {
        let eight = changed { $0.quantity = 8 }
        let ten = changed { $0.quantity = 10 }

        let (mineLarger, mineRecord) = try await settle(base: base, mine: ten, theirs: eight)
        let (theirsLarger, theirsRecord) = try await settle(base: base, mine: eight, theirs: ten)

        #expect(mineLarger?.quantity == 10)
        #expect(theirsLarger?.quantity == 10)
        #expect(
            mineRecord?.resolution
                == .mergedByField(localFields: [], remoteFields: [], tiedFields: ["quantity": .local]))
        #expect(
            theirsRecord?.resolution
                == .mergedByField(localFields: [], remoteFields: [], tiedFields: ["quantity": .remote]))
    }

    @Test func bothChangingTheNoteKeepsTheAPIsAndTheRecordKeepsThisDevicesNote() async throws {
        let (kept, record) = try await settle(
            base: base, mine: changed { $0.note = "sliced" }, theirs: changed { $0.note = "rye" })

        #expect(kept?.note == "rye")
        #expect(record?.local?.note == "sliced")
        #expect(
            record?.resolution.description == "merged field by field: note changed on both, the remote's kept"
        )
    }

    /// Both devices created item 1 on their own: there is no base to merge from.
    @Test func withoutABaseTheAPIsItemIsKeptWhole() async throws {
        let mine = ShoppingItem(id: 1, name: "Soy milk", quantity: 3, isBought: true)
        let theirs = ShoppingItem(id: 1, name: "Milk", quantity: 2, note: "rye")

        let (kept, record) = try await settle(base: nil, mine: mine, theirs: theirs)

        #expect(kept == theirs)
        #expect(record?.resolution == .tieTookRemote)
        #expect(record?.local == mine)
    }
}
