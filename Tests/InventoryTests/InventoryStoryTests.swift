import Foundation
import Repositories
import RepositoriesTestSupport
import Testing

@testable import Inventory

/// The Inventory example's run, on the tests' shared server: its claims hold.
@Suite struct InventoryStoryTests {
    @Test func theStoryKeepsEveryPromiseItPrints() async throws {
        let server = try await PostgresTestServer.shared()
        let table = "inventory_" + UUID().uuidString.prefix(8).lowercased()
        let outcome = try await InventoryStory.run(connectionString: server.connectionString, table: table)
        #expect(outcome.naiveStock <= 400)
        #expect(outcome.updatedStock == 400, "update(id:_:) loses no increment")
        #expect(outcome.sold == outcome.stockAtStart && outcome.left == 0, "exactly the stock was sold")
        #expect(outcome.upgraded == 3, "version 2 upgraded the three items")
        #expect(outcome.refusal == .writtenByNewerVersion)
        #expect(outcome.shelfKept == "A3", "the field version 1 would have dropped is there")
    }
}
