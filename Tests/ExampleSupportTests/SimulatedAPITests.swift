import ExampleSupport
import Foundation
import Repositories
import RepositoriesHTTP
import RepositoriesTesting
import Testing

/// A product with a price the simulated API's rules can refuse.
private struct Product: Codable, Identifiable, Sendable, Equatable {
    var id: Int
    var name: String
    var price: Double
    var quantity: Int
}

private let apple = Product(id: 1, name: "Apple", price: 2, quantity: 3)
private let collection = URL(string: "https://simulated.example/products")!

private let positivePrice = FieldRule<Product>(
    field: "price", type: "greater_than", message: "Input should be greater than 0"
) { $0.price > 0 }
private let atLeastOne = FieldRule<Product>(
    field: "quantity", type: "greater_than_equal", message: "Ensure this value is greater than or equal to 1."
) { $0.quantity >= 1 }

/// `HTTPRepository` over the simulated API of `store`, checking `rules` in `format`.
private func client(
    _ store: InMemoryRepository<Product>, _ format: RefusalFormat, rules: [FieldRule<Product>]
) -> HTTPRepository<Product> {
    HTTPRepository(
        baseURL: collection,
        transport: SimulatedAPI(
            store: store, collection: collection, validation: APIValidation(format, rules: rules)))
}

/// The simulated API answers `HTTPRepository` as a REST server does, and refuses a write that
/// breaks a rule in the shape of the framework it stands for, which `HTTPRepository` reads
/// into `httpStatus` and `fieldErrors`.
@Suite struct SimulatedAPITests {
    @Test func throughHTTPRepositoryItKeepsEveryLawPlainRESTCan() async throws {
        let options = ConformanceOptions<HTTPRepository<ConformanceEntity>>(
            unsupported: [.atomicBatches],
            // The store keeps the data, so a new client of the same API must see it all.
            reopen: { HTTPRepository(baseURL: $0.baseURL, transport: $0.transport) },
            concurrentTasks: 4, operationsPerTask: 200)
        try await RepositoryConformance(options: options) {
            let store = InMemoryRepository<ConformanceEntity>()
            return HTTPRepository<ConformanceEntity>(
                baseURL: collection,
                transport: SimulatedAPI(
                    store: store, collection: collection, validation: APIValidation(.fastAPI, rules: [])))
        }.run()
    }

    @Test func aWriteBreakingARuleIsRefusedAsFastAPIRefusesItAndNothingIsSaved() async throws {
        let store = InMemoryRepository([apple])
        var free = apple
        free.price = 0

        let error = await #expect(throws: RepositoryError.self) {
            try await client(store, .fastAPI, rules: [positivePrice]).save(free)
        }

        #expect(error?.code == .rejected)
        #expect(error?.httpStatus == 422)
        #expect(error?.fieldErrors == ["price": ["Input should be greater than 0"]])
        let body = try #require(error?.responseBody)
        #expect(
            String(decoding: body, as: UTF8.self)
                == #"{"detail":[{"input":0,"loc":["body","price"],"msg":"Input should be greater than 0","type":"greater_than"}]}"#
        )
        #expect(try await store.fetch(id: 1) == apple)
    }

    @Test func aWriteBreakingRulesIsRefusedAsDjangoRESTFrameworkRefusesIt() async throws {
        let store = InMemoryRepository<Product>()
        let nothing = Product(id: 2, name: "Pear", price: 0, quantity: 0)

        let error = await #expect(throws: RepositoryError.self) {
            try await client(store, .djangoREST, rules: [positivePrice, atLeastOne]).save(nothing)
        }

        #expect(error?.code == .rejected)
        #expect(error?.httpStatus == 400)
        #expect(
            error?.fieldErrors == [
                "price": ["Input should be greater than 0"],
                "quantity": ["Ensure this value is greater than or equal to 1."],
            ])
        #expect(try await store.count() == 0)
    }

    @Test func aWriteKeepingTheRulesIsSavedAndReadBack() async throws {
        let store = InMemoryRepository<Product>()
        let api = client(store, .fastAPI, rules: [positivePrice, atLeastOne])

        try await api.save(apple)

        #expect(try await store.fetch(id: 1) == apple)
        #expect(try await api.fetch(id: 1) == apple)
        #expect(try await api.fetchAll() == [apple])
        try await api.delete(id: 1)
        #expect(try await api.fetch(id: 1) == nil)
    }

    @Test func anExampleRemoteWithValidationServesItsStoreOverHTTP() async throws {
        let remote = ExampleRemote(
            options: ExampleOptions(), resource: "products", seed: [apple],
            validation: APIValidation(.fastAPI, rules: [positivePrice]))
        var free = apple
        free.price = 0

        let error = await #expect(throws: RepositoryError.self) { try await remote.repository.save(free) }

        #expect(error?.httpStatus == 422)
        #expect(error?.fieldErrors["price"] == ["Input should be greater than 0"])
        #expect(error?.location == "https://simulated.example/products/1")
        #expect(remote.validation?.format == .fastAPI)
        #expect(try await remote.server?.fetch(id: 1) == apple)
    }

    @Test func anExampleRemoteUnderAPIChecksNothingItself() async throws {
        var options = ExampleOptions()
        options.apiURL = URL(string: "http://127.0.0.1:9")
        let remote = ExampleRemote(
            options: options, resource: "products", seed: [apple],
            validation: APIValidation(.fastAPI, rules: [positivePrice]))

        #expect(remote.validation == nil)
        #expect(remote.server == nil)
    }
}
