import Foundation
import Observation
import Repositories
import RepositoriesHTTP
import RepositoriesTesting
import Testing

/// The Swift snippets of Docs/GettingStarted.md, verbatim, in the guide's order; the ones
/// that need no network run.
@Suite struct GettingStartedSnippets {
    /// Step 1, the package manifest, checked by `ManifestSnippetTests`.
    static let manifest = ManifestSnippet(
        guide: "Docs/GettingStarted.md",
        fragment: """
            dependencies: [
                .package(path: "../Repositories"),
            ],
            targets: [
                .target(name: "Shop", dependencies: [
                    .product(name: "Repositories", package: "Repositories"),       // protocol, stores, decorators
                    .product(name: "RepositoriesHTTP", package: "Repositories"),   // HTTPRepository
                    // .product(name: "RepositoriesSQLite", package: "Repositories"),  // SQLiteRepository
                ]),
                .testTarget(name: "ShopTests", dependencies: [
                    "Shop",
                    .product(name: "RepositoriesTesting", package: "Repositories"), // suite and doubles
                ]),
            ]
            """,
        manifest: { fragment in "Package(\n    name: \"Shop\",\n\(fragment)\n)" })

    // Step 2.
    struct Product: Identifiable, Codable, Sendable, Equatable {
        let id: Int
        var name: String
        var price: Double
        var summary: String
    }

    // Step 3.
    func cheapest(_ count: Int, in products: some Repository<Product, Int>) async throws -> [Product] {
        try await products.fetch(Query<Product>().sorted(by: \.price).limit(count))
    }

    let tea = Product(id: 1, name: "Choy", price: 12_000, summary: "Green tea, 100 g")
    let bread = Product(id: 2, name: "Non", price: 4_000, summary: "Tandir bread")

    /// Step 4: in memory.
    func startInMemory() async throws -> [Product] {
        let products = InMemoryRepository<Product>([
            Product(id: 1, name: "Choy", price: 12_000, summary: "Green tea, 100 g"),
            Product(id: 2, name: "Non", price: 4_000, summary: "Tandir bread"),
        ])
        try await products.save(Product(id: 3, name: "Sut", price: 9_500, summary: "Milk, 1 l"))
        let two = try await cheapest(2, in: products)  // Non, Sut
        return two
    }

    @Test func theTwoCheapestAreBreadAndMilk() async throws {
        #expect(try await startInMemory().map(\.name) == ["Non", "Sut"])
    }

    /// Step 5: on disk, in the reader's `directory`.
    func keepOnDisk(directory: URL) async throws {
        let url = directory.appending(path: "products.store")  // directory: a folder your app owns
        let products = try await FileRepository<Product>(fileURL: url)
        try await products.save(tea)  // on disk (fsync) when this returns; survives kill -9
    }

    /// Step 6: the API in front, the file behind.
    func apiInFront(url: URL) async throws {
        let api = HTTPRepository<Product>(baseURL: URL(string: "https://api.example.com/products")!)
        let mirror = try await FileRepository<Product>(fileURL: url)
        let products = api.fallback(to: mirror)

        let all = try await products.fetchAll()  // from the API, and now in the mirror
        // … the network drops …
        let same = try await products.fetchAll()  // from the mirror
        _ = (all, same)
    }

    /// Step 6: a screen that shows where the answer came from.
    @MainActor final class ProductsScreen {
        var banner: String?

        func show(_ products: [Product], offline: Bool) {}

        func watch(products: RemoteFirstRepository<HTTPRepository<Product>, FileRepository<Product>>) async {
            do {
                for try await answer in products.valuesAll() {
                    show(answer.value, offline: answer.origin == .local)  // local first, then remote
                }
            } catch {
                banner = "Showing saved products: \(error)"
            }
        }
    }

    /// Step 7: a cache, retries and a timeout.
    func decorate(
        api: HTTPRepository<Product>, mirror: FileRepository<Product>
    ) -> some Repository<Product, Int> {
        let products = api.timeout(.seconds(5))
            .retrying(.default)  // transient errors only, exponential backoff
            .fallback(to: mirror)
            .cached(in: InMemoryRepository<Cached<Product>>(), timeToLive: .seconds(60))
        return products
    }

    /// Step 8: errors a user can act on.
    func handleErrors(products: some Repository<Product, Int>, product: Product) async throws -> String {
        var message = ""
        do {
            try await products.save(product)
        } catch let error as RepositoryError {
            switch error.code {
            case .unavailable, .timedOut, .circuitOpen: message = "You're offline; try again later."
            case .conflict: message = "Someone else changed this product; reload it."
            case .rejected: message = error.description  // the server said no, and why
            default: message = error.description
            }
        }
        return message
    }

    // Step 9.
    @MainActor @Observable final class ProductsViewModel {
        private(set) var products: [Product] = []
        private(set) var isLoading = false
        private(set) var errorMessage: String?
        private let repository: any Repository<Product, Int>

        init(repository: any Repository<Product, Int>) {
            self.repository = repository
        }

        func load() async {
            isLoading = true
            defer { isLoading = false }
            do {
                products = try await repository.fetchAll()
                errorMessage = nil
            } catch {
                errorMessage = "\(error)"
            }
        }
    }

    // Step 10: the tests run.
    @MainActor @Test func loadShowsWhatTheRepositoryHolds() async throws {
        let spy = SpyRepository(InMemoryRepository<Product>([tea, bread]))
        let model = ProductsViewModel(repository: spy)
        await model.load()
        #expect(model.products == [tea, bread])
        #expect(spy.operations == [.fetchAll])
    }

    @MainActor @Test func aFailedLoadSaysWhy() async throws {
        let store = FaultInjectingRepository(InMemoryRepository<Product>())
        store.failNext(of: .fetchAll, with: RepositoryError.unavailable("offline"))
        let model = ProductsViewModel(repository: store)
        await model.load()
        #expect(model.errorMessage?.contains("offline") == true)
    }
}
