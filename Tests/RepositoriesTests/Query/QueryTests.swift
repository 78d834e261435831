import Repositories
import Testing

@Suite struct QueryTests {
    struct Product: Identifiable, Sendable, Equatable {
        var id: Int
        var name: String
        var price: Int
    }

    let products = [
        Product(id: 1, name: "tea", price: 3),
        Product(id: 2, name: "bread", price: 2),
        Product(id: 3, name: "milk", price: 2),
        Product(id: 4, name: "apple", price: 5),
        Product(id: 5, name: "cheese", price: 3),
    ]

    @Test func noQueryKeepsEverythingInStoredOrder() throws {
        #expect(try Query<Product>().apply(to: products) == products)
    }

    @Test func filtersCombineWithAnd() throws {
        let query = Query<Product>(where: { $0.price >= 3 }).filter { $0.name != "tea" }
        #expect(try query.apply(to: products).map(\.id) == [4, 5])
    }

    @Test func sortsByKeyPathAscendingAndDescending() throws {
        #expect(
            try Query<Product>().sorted(by: \.name).apply(to: products).map(\.name) == [
                "apple", "bread", "cheese", "milk", "tea",
            ])
        #expect(
            try Query<Product>().sorted(by: \.price, .descending).apply(to: products).map(\.id) == [
                4, 1, 5, 2, 3,
            ])
    }

    @Test func laterKeysBreakTiesAndRemainingTiesKeepStoredOrder() throws {
        let byPriceThenName = Query<Product>().sorted(by: \.price).sorted(by: \.name, .descending)
        #expect(try byPriceThenName.apply(to: products).map(\.id) == [3, 2, 1, 5, 4])
        let byPriceOnly = Query<Product>(sortedBy: [.ascending(\.price)])
        #expect(try byPriceOnly.apply(to: products).map(\.id) == [2, 3, 1, 5, 4])
    }

    @Test func sortsByAComputedValue() throws {
        let query = Query<Product>(sortedBy: [SortKey(.descending) { $0.name.count }])
        #expect(try query.apply(to: products).map(\.id) == [5, 2, 4, 3, 1])
    }

    @Test func offsetAndLimitPageAfterSorting() throws {
        let page = Query<Product>().sorted(by: \.id, .descending).offset(1).limit(2)
        #expect(try page.apply(to: products).map(\.id) == [4, 3])
        #expect(try Query<Product>().offset(10).apply(to: products).isEmpty)
        #expect(try Query<Product>().offset(4).limit(10).apply(to: products).map(\.id) == [5])
        #expect(try Query<Product>().limit(0).apply(to: products).isEmpty)
    }

    @Test func negativeOffsetOrLimitIsRejectedWithAClearMessage() throws {
        let offsetError = #expect(throws: RepositoryError.self) {
            try Query<Product>().offset(-2).apply(to: products)
        }
        #expect(offsetError?.code == .rejected)
        #expect(offsetError?.description.contains("offset is -2") == true)
        let limitError = #expect(throws: RepositoryError.self) { try Query<Product>().limit(-1).validate() }
        #expect(limitError?.code == .rejected)
        #expect(limitError?.description.contains("limit is -1") == true)
    }
}
