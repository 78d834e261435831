import Testing

@testable import SharedList

/// The field-by-field merge the devices' `.merge` policy runs.
@Suite struct ShoppingItemMergeTests {
    private let base = ShoppingItem(id: 1, name: "Milk", quantity: 1)

    private func changed(_ change: (inout ShoppingItem) -> Void) -> ShoppingItem {
        var item = base
        change(&item)
        return item
    }

    @Test func eachSideKeepsTheFieldItAloneChanged() {
        let mine = changed { $0.isBought = true }
        let theirs = changed { $0.quantity = 2 }

        let merged = ShoppingItem.merged(base: base, mine: mine, theirs: theirs)

        #expect(merged == ShoppingItem(id: 1, name: "Milk", quantity: 2, isBought: true))
    }

    @Test func bothChangingTheQuantityKeepsTheLargerWhicheverSyncsFirst() {
        let eight = changed { $0.quantity = 8 }
        let ten = changed { $0.quantity = 10 }

        #expect(ShoppingItem.merged(base: base, mine: ten, theirs: eight).quantity == 10)
        #expect(ShoppingItem.merged(base: base, mine: eight, theirs: ten).quantity == 10)
    }

    @Test func bothChangingTheNoteKeepsBothTheRemotesFirst() {
        let rye = changed { $0.note = "rye" }
        let sliced = changed { $0.note = "sliced" }

        #expect(ShoppingItem.merged(base: base, mine: sliced, theirs: rye).note == "rye; sliced")
    }

    @Test func bothRenamingKeepsTheRemotesName() {
        let oat = changed { $0.name = "Oat milk" }
        let soy = changed { $0.name = "Soy milk" }

        #expect(ShoppingItem.merged(base: base, mine: soy, theirs: oat).name == "Oat milk")
    }

    @Test func aNoteOneSideClearedStaysCleared() {
        let noted = ShoppingItem(id: 1, name: "Milk", quantity: 1, note: "rye")
        var cleared = noted
        cleared.note = ""
        var more = noted
        more.quantity = 3

        let merged = ShoppingItem.merged(base: noted, mine: cleared, theirs: more)

        #expect(merged == ShoppingItem(id: 1, name: "Milk", quantity: 3))
    }

    /// Both devices created item 1 on their own: every field that differs counts as changed
    /// by both.
    @Test func withoutABaseEveryDifferingFieldFollowsItsRule() {
        let mine = ShoppingItem(id: 1, name: "Soy milk", quantity: 3, isBought: true, note: "sliced")
        let theirs = ShoppingItem(id: 1, name: "Milk", quantity: 2, note: "rye")

        let merged = ShoppingItem.merged(base: nil, mine: mine, theirs: theirs)

        #expect(merged == ShoppingItem(id: 1, name: "Milk", quantity: 3, isBought: true, note: "rye; sliced"))
    }
}
