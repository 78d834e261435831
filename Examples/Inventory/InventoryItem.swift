import Foundation
import Repositories

/// An item as version 1 of the service kept it: a name, a price in cents, and the stock.
struct ItemV1: Codable, Identifiable, Sendable, Equatable {
    var id: String
    var name: String
    var priceCents: Int
    var stock: Int
}

/// An item as version 2 keeps it: version 1 plus the shelf it is kept on.
struct Item: Codable, Identifiable, Sendable, Equatable {
    var id: String
    var name: String
    var priceCents: Int
    var stock: Int
    var shelf: String

    /// Version 2's upgrade of the rows version 1 wrote: every item starts on no shelf.
    static func migrations() throws -> Migrations<Item> {
        try Migrations<Item>(
            .upgrade(from: 1) { (old: ItemV1) in
                Item(
                    id: old.id, name: old.name, priceCents: old.priceCents, stock: old.stock,
                    shelf: "unsorted")
            })
    }
}

/// What a sale throws when the item has none left: the update is rolled back, nothing sold.
struct OutOfStock: Error {}
