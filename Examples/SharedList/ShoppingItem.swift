/// One line of a shared shopping list: what to buy, how many, whether someone bought it,
/// and a note for whoever goes to the shop.
struct ShoppingItem: Identifiable, Codable, Sendable, Hashable {
    /// Identifies the item on every device and on the API.
    let id: Int
    /// What to buy.
    var name: String
    /// How many.
    var quantity: Int
    /// Whether someone bought it.
    var isBought: Bool
    /// A word for the shop ("rye", "green ones"); empty when there is none.
    var note: String

    /// An item, not bought, without a note unless given.
    init(id: Int, name: String, quantity: Int, isBought: Bool = false, note: String = "") {
        self.id = id
        self.name = name
        self.quantity = quantity
        self.isBought = isBought
        self.note = note
    }

    /// The item as a line of the list: `[x] Milk ×2`, `[ ] Bread ×2 (rye)`.
    var line: String {
        "\(isBought ? "[x]" : "[ ]") \(name) ×\(quantity)" + (note.isEmpty ? "" : " (\(note))")
    }
}

extension ShoppingItem {
    /// The list the phone writes at the start.
    static let list = [
        ShoppingItem(id: 1, name: "Milk", quantity: 1),
        ShoppingItem(id: 2, name: "Bread", quantity: 2),
        ShoppingItem(id: 3, name: "Apples", quantity: 6),
    ]
}
