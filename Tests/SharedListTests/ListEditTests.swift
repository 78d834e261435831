import Repositories
import Testing

@testable import SharedList

/// How the story accounts for an edit: in an item, or named by a conflict record that kept
/// the other side's value of its field.
@Suite struct ListEditTests {
    private let base = ShoppingItem(id: 2, name: "Bread", quantity: 2)
    private let laptopsNote = ListEdit(device: "laptop", itemID: 2, field: "note", label: "sliced") {
        $0.note = "sliced"
    }
    private let phonesNote = ListEdit(device: "phone", itemID: 2, field: "note", label: "rye") {
        $0.note = "rye"
    }

    private func noted(_ note: String) -> ShoppingItem {
        var item = base
        item.note = note
        return item
    }

    /// The laptop's record of Bread: its `sliced` against the API's `rye`, `kept`'s note kept.
    private func laptopsRecord(keeping kept: ConflictSide) -> ListEdit.Record {
        let result = kept == .local ? noted("sliced") : noted("rye")
        let conflict = SyncConflict(
            entityID: 2, base: base, local: noted("sliced"), remote: noted("rye"), result: result,
            resolution: .mergedByField(localFields: [], remoteFields: [], tiedFields: ["note": kept]))
        return (device: "laptop", conflict: conflict)
    }

    @Test func anEditIsInAnItemThatHoldsItsValue() {
        #expect(laptopsNote.isIn(noted("sliced")))
        #expect(!laptopsNote.isIn(noted("rye")))
        #expect(!laptopsNote.isIn(nil))
    }

    @Test func anEditThatGaveWayOnItsOwnDeviceIsNamedByThatDevicesRecord() {
        #expect(laptopsNote.namedBy([laptopsRecord(keeping: .remote)])?.device == "laptop")
        #expect(laptopsNote.namedBy([laptopsRecord(keeping: .local)]) == nil, "it was kept, not named")
    }

    @Test func anEditThatGaveWayToAnotherDeviceIsNamedByThatDevicesRecord() {
        #expect(phonesNote.namedBy([laptopsRecord(keeping: .local)])?.device == "laptop")
        #expect(phonesNote.namedBy([laptopsRecord(keeping: .remote)]) == nil, "it was kept, not named")
    }

    @Test func aRecordOfAnotherItemOrFieldNamesNothing() {
        let quantity = ListEdit(device: "laptop", itemID: 2, field: "quantity", label: "×3") {
            $0.quantity = 3
        }
        let otherItem = ListEdit(device: "laptop", itemID: 3, field: "note", label: "sliced") {
            $0.note = "sliced"
        }

        #expect(quantity.namedBy([laptopsRecord(keeping: .remote)]) == nil)
        #expect(otherItem.namedBy([laptopsRecord(keeping: .remote)]) == nil)
    }
}
