import Foundation
import Repositories
import RepositoriesPostgres

/// The run: two instances of version 1 share a table; their caches stay coherent; a naive
/// read-change-save loses updates where `update(id:_:)` loses none; both instances sell one
/// item's stock under contention and sell exactly what there was; then instance B is
/// redeployed as version 2, which upgrades the rows, and A, still at version 1, is refused
/// rather than allowed to drop B's new field.
enum InventoryStory {
    /// What the run measured, for its tests.
    struct Outcome: Sendable, Equatable {
        /// Stock after 400 naive increments from two instances (400 when none was lost).
        var naiveStock: Int
        /// Stock after 400 increments through `update(id:_:)`.
        var updatedStock: Int
        /// Bolts sold by both instances together, and the stock there was.
        var sold: Int
        var stockAtStart: Int
        /// Bolts left.
        var left: Int
        /// Rows version 2 upgraded when it opened.
        var upgraded: Int
        /// The code version 1's save over an upgraded row threw.
        var refusal: RepositoryError.Code?
        /// The shelf version 1 would have dropped, as version 2 reads it after the refusal.
        var shelfKept: String?
    }

    static let writersPerInstance = 8

    /// Tells the story on a new table of the server at `connectionString`, printing each step.
    static func run(connectionString: String, table: String) async throws -> Outcome {
        print("Version 1 is deployed: instances A and B share the table \"\(table)\".")
        let a = try await InventoryInstance<ItemV1>("A", connectionString: connectionString, table: table)
        let b = try await InventoryInstance<ItemV1>("B", connectionString: connectionString, table: table)
        var outcome = Outcome(
            naiveStock: 0, updatedStock: 0, sold: 0, stockAtStart: 200, left: 0, upgraded: 0, refusal: nil,
            shelfKept: nil)
        do {
            try await a.cached.save(contentsOf: [
                ItemV1(id: "bolt", name: "M6 bolt", priceCents: 12, stock: outcome.stockAtStart),
                ItemV1(id: "nut", name: "M6 nut", priceCents: 5, stock: 0),
                ItemV1(id: "washer", name: "M6 washer", priceCents: 2, stock: 1_000),
            ])

            // Coherent caches.
            let cachedPrice = try await a.cached.require(id: "washer").priceCents
            let heardBefore = a.heard.count
            var washer = try await b.cached.require(id: "washer")
            washer.priceCents = 3
            try await b.cached.save(washer)
            try await a.heard.wait(forChangeOf: "washer", after: heardBefore)
            let seen = try await a.cached.require(id: "washer").priceCents
            print(
                "  A cached the washer at \(cachedPrice)¢; B changed it to 3¢; A's cache dropped it when told, and A now serves \(seen)¢."
            )

            // Lost updates, and none with update(id:_:).
            outcome.naiveStock = try await restock(a, b, naive: true)
            try await a.cached.save(ItemV1(id: "nut", name: "M6 nut", priceCents: 5, stock: 0))
            outcome.updatedStock = try await restock(a, b, naive: false)
            print(
                "  400 restocks of nuts, 200 from each instance, as fetch-change-save: the stock ends at \(outcome.naiveStock) (\(400 - outcome.naiveStock) lost)."
            )
            print("  The same 400 through update(id:_:): \(outcome.updatedStock).")

            // Selling one item's stock under contention.
            let sales = try await sell(a, b)
            outcome.sold = sales.values.reduce(0, +)
            outcome.left = try await a.items.require(id: "bolt").stock
            print(
                "  \(2 * writersPerInstance) sellers in two instances sold bolts until none was left: A sold \(sales["A"] ?? 0), B \(sales["B"] ?? 0), \(outcome.sold) of \(outcome.stockAtStart) in all; \(outcome.left) left, none oversold."
            )

            // A rolling deploy of version 2.
            print("Version 2 (items gain a shelf) is deployed to B first; A still runs version 1.")
            await b.close()
            let b2 = try await InventoryInstance<Item>(
                "B", connectionString: connectionString, table: table, migrations: Item.migrations())
            do {
                outcome.upgraded = b2.items.upgradedRowCount
                print(
                    "  B opened the table at version 2 and upgraded its \(outcome.upgraded) rows in one transaction."
                )
                try await b2.items.update(id: "washer") { $0.shelf = "A3" }
                do {
                    var old = try await a.items.require(id: "washer")
                    old.priceCents = 4
                    try await a.items.save(old)
                    print("  A saved its version 1 washer over B's: the shelf is lost.")
                } catch let error as RepositoryError {
                    outcome.refusal = error.code
                    print(
                        "  A, at version 1, is refused the washer B wrote: \(error.code) (\(error.reason)).")
                }
                outcome.shelfKept = try await b2.items.require(id: "washer").shelf
                print(
                    "  B still reads the washer on shelf \(outcome.shelfKept ?? "nil"). A is redeployed next."
                )
                await a.close()
                let a2 = try await InventoryInstance<Item>(
                    "A", connectionString: connectionString, table: table, migrations: Item.migrations())
                let shelf = try await a2.cached.require(id: "washer").shelf
                print(
                    "  A, now at version 2, upgrades nothing (\(a2.items.upgradedRowCount) rows) and reads shelf \(shelf)."
                )
                await a2.close()
            } catch {
                await b2.close()
                throw error
            }
            await b2.close()
        } catch {
            await a.close()
            await b.close()
            throw error
        }
        return outcome
    }

    /// Adds 400 to the nuts' stock from both instances at once, 8 tasks each: by
    /// fetch-change-save (`naive`), or by `update(id:_:)`; returns the stock at the end.
    private static func restock(
        _ a: InventoryInstance<ItemV1>, _ b: InventoryInstance<ItemV1>, naive: Bool
    ) async throws -> Int {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for instance in [a, b] {
                for _ in 0..<writersPerInstance {
                    group.addTask {
                        for _ in 0..<(200 / writersPerInstance) {
                            if naive {
                                var nut = try await instance.items.require(id: "nut")
                                nut.stock += 1
                                try await instance.items.save(nut)
                            } else {
                                try await instance.items.update(id: "nut") { $0.stock += 1 }
                            }
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        return try await a.items.require(id: "nut").stock
    }

    /// Sells bolts one at a time from both instances until none is left; what each sold.
    private static func sell(_ a: InventoryInstance<ItemV1>, _ b: InventoryInstance<ItemV1>) async throws
        -> [String: Int]
    {
        try await withThrowingTaskGroup(of: (String, Int).self) { group in
            for instance in [a, b] {
                for _ in 0..<writersPerInstance {
                    group.addTask {
                        var sold = 0
                        while true {
                            do {
                                try await instance.items.update(id: "bolt") { bolt in
                                    guard bolt.stock > 0 else { throw OutOfStock() }
                                    bolt.stock -= 1
                                }
                                sold += 1
                            } catch is OutOfStock {
                                return (instance.name, sold)
                            }
                        }
                    }
                }
            }
            var sales: [String: Int] = [:]
            for try await (name, sold) in group { sales[name, default: 0] += sold }
            return sales
        }
    }
}
