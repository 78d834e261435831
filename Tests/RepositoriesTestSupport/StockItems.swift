import Foundation
import Repositories

/// An inventory item in two versions, for the PostgreSQL rolling-deploy and upgrade tests and
/// the crash fixture that is killed during an upgrade.
public enum StockItems {
    /// Version 1: a name and a stock count.
    public struct V1: Codable, Identifiable, Sendable, Equatable {
        /// The SKU.
        public var id: String
        /// What the item is.
        public var name: String
        /// How many are in stock.
        public var stock: Int

        /// An item of version 1.
        public init(id: String, name: String, stock: Int) {
            (self.id, self.name, self.stock) = (id, name, stock)
        }

        /// The item for `index`, its content following from it.
        public static func make(_ index: Int) -> V1 {
            V1(id: String(format: "sku-%05d", index), name: "item \(index) — çay ☕️", stock: index % 17)
        }
    }

    /// Version 2: adds the shelf the item is kept on, and when it was counted.
    public struct V2: Codable, Identifiable, Sendable, Equatable {
        /// The SKU.
        public var id: String
        /// What the item is.
        public var name: String
        /// How many are in stock.
        public var stock: Int
        /// Where it is kept; `"unsorted"` for items version 1 wrote.
        public var shelf: String
        /// When it was last counted.
        public var counted: Date

        /// An item of version 2.
        public init(id: String, name: String, stock: Int, shelf: String, counted: Date) {
            (self.id, self.name, self.stock, self.shelf, self.counted) = (id, name, stock, shelf, counted)
        }

        /// `old`, upgraded: on no shelf yet, counted at the epoch.
        public init(upgrading old: V1) {
            self.init(
                id: old.id, name: old.name, stock: old.stock, shelf: "unsorted",
                counted: Date(timeIntervalSince1970: 0))
        }
    }

    /// The migrations of version 2: one upgrade from version 1, which calls `observe` with
    /// each item it upgrades first.
    public static func migrations(observe: @escaping @Sendable (V1) -> Void = { _ in }) throws -> Migrations<
        V2
    > {
        try Migrations<V2>(
            .upgrade(from: 1) { (old: V1) in
                observe(old)
                return V2(upgrading: old)
            })
    }
}
