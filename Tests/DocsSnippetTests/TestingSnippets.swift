import Foundation
import Observation
import Repositories
import RepositoriesTestSupport
import RepositoriesTesting
import Testing
import XCTest

/// The Swift snippets of Docs/Testing.md, verbatim (the TestStore one is NumberFacts' own
/// test, `aFactArrivesAndIsShown`). The doubles' snippets run; the conformance suites are
/// compiled, and run by RepositoriesTesting's own tests.
@Suite struct TestingSnippets {
    /// The test target, checked by `ManifestSnippetTests`.
    static let manifest = ManifestSnippet(
        guide: "Docs/Testing.md",
        fragment: """
            .testTarget(name: "MyStoreTests", dependencies: [
                .product(name: "Repositories", package: "Repositories"),
                .product(name: "RepositoriesTesting", package: "Repositories"),
            ])
            """,
        manifest: { fragment in
            """
            Package(
                name: "MyStore",
                dependencies: [.package(path: "../Repositories")],
                targets: [
            \(fragment)
                ]
            )
            """
        })

    /// The reader's store; the in-memory one stands in for it.
    typealias MyStore<Entity: Identifiable & Sendable> = InMemoryRepository<Entity>

    /// The Swift Testing snippets that run the whole conformance suite, compiled only.
    @Suite(.disabled("compiled for Docs/Testing.md; the conformance suite's own tests run it"))
    struct SwiftTesting {
        @Suite struct MyStoreTests {
            let suite = RepositoryConformance(makeRepository: { MyStore<ConformanceEntity>() })

            // One test per area, so a failure shows where it belongs…
            @Test func basics() async throws { try await suite.basics() }
            @Test func batches() async throws { try await suite.batches() }
            @Test func ordering() async throws { try await suite.ordering() }
            @Test func queries() async throws { try await suite.queries() }
            @Test func concurrency() async throws { try await suite.concurrency() }
            @Test func randomized() async throws { try await suite.randomized() }
            @Test func durability() async throws { try await suite.durability() }

            // …or everything at once.
            @Test func conforms() async throws { try await suite.run() }
        }

        @Test func conforms() async {
            await RepositoryConformance(makeRepository: { MyStore<ConformanceEntity>() }).expectConformance()
        }
    }

    struct Ticket: Identifiable, Codable, Sendable, Equatable {
        var id: Int
        var seat: Int
        var price: Double
    }

    /// A store that is not generic.
    typealias TicketStore = InMemoryRepository<Ticket>

    /// "Your own entity".
    func ownEntity() -> RepositoryConformance<TicketStore> {
        let suite = RepositoryConformance(
            makeRepository: { TicketStore() },
            makeEntity: { index, revision in
                Ticket(id: Ticket.ID(index), seat: revision, price: 10)  // ID by index, content by revision
            })
        return suite
    }

    /// "Your own entity": one the store cannot encode.
    func unencodable() -> ConformanceOptions<TicketStore> {
        var options = ConformanceOptions<TicketStore>()
        options.makeUnencodableEntity = { index in Ticket(id: Ticket.ID(index), seat: 0, price: .nan) }
        return options
    }

    /// "Options": a durable store's.
    func durableOptions(temporaryDirectory: URL) -> RepositoryConformance<FileRepository<ConformanceEntity>> {
        var options = ConformanceOptions<FileRepository<ConformanceEntity>>()
        options.reopen = { store in
            try await store.close()
            return try await FileRepository(fileURL: store.fileURL)
        }
        options.tearDown = { store in
            try await store.close()
            try FileManager.default.removeItem(at: store.fileURL)
        }
        let suite = RepositoryConformance(
            options: options,
            makeRepository: {
                try await FileRepository(fileURL: temporaryDirectory.appending(path: "\(UUID()).store"))
            })
        return suite
    }

    /// "Checking offline-first sync", compiled only: it runs seeded multi-device sequences.
    @Suite(.disabled("compiled for Docs/Testing.md; SyncConformanceTests runs the suite"))
    struct SyncSnippet {
        @Test func notesSync() async {
            await SyncConformance(
                options: SyncConformanceOptions(beforeFinalSync: { remote in remote.reset() }),
                conflicts: .lastWriterWins,
                makeRemote: {
                    let remote = FaultInjectingRepository(InMemoryRepository<ConformanceEntity>())
                    remote.injectRandomFaults(probability: 0.5, seed: 7)
                    return remote
                },
                openDevice: { directory in  // the same directory again after a restart
                    let local = try await FileRepository<ConformanceEntity>(
                        fileURL: directory.appending(path: "store"))
                    let outbox = try await Outbox<ConformanceEntity>(
                        fileURL: directory.appending(path: "outbox"))
                    return SyncDeviceStores(local: local, outbox: outbox) {
                        try await local.close()
                        try await outbox.close()
                    }
                }
            ).expectConformance()
        }
    }

    /// "Checking a change feed": runs as written.
    @Test func notesFeed() async throws {
        var options = ChangeFeedConformanceOptions<InMemoryRepository<ConformanceEntity>>()
        options.expireCursors = { store in store.forgetDeletions() }  // old cursors must now expire
        try await ChangeFeedConformance(
            options: options,
            makeRepository: { InMemoryRepository<ConformanceEntity>() }
        ).run()
    }

    struct Note: Identifiable, Codable, Sendable, Equatable {
        var id: Int
        var title: String
    }

    /// "HostileRemote": run as written; the resent batch goes out under its first key, and the
    /// server answers it from its record.
    @Test func hostileRemote() async throws {
        let directory = try TemporaryDirectory()
        let local = try await FileRepository<Note>(fileURL: directory.file())
        let outbox = try await Outbox<Note>(fileURL: directory.file())
        let (milk, bread, eggs) = (
            Note(id: 1, title: "Milk"), Note(id: 2, title: "Bread"), Note(id: 3, title: "Eggs")
        )
        let remote = HostileRemote<Note>()
        remote.normalize { note in
            var note = note
            note.title = note.title.lowercased()  // the server keeps titles in lower case
            return note
        }
        let notes = remote.offlineFirst(
            local: local, outbox: outbox, conflicts: .lastWriterWins, automaticSync: nil)
        try await notes.save(contentsOf: [milk, bread])
        remote.loseNextAnswers(1)  // applied, but the device hears `unavailable`
        await #expect(throws: RepositoryError.self) { try await notes.sync() }
        try await notes.save(eggs)
        try await notes.sync()
        #expect(remote.timesApplied(milk) == 1)  // counted at the server, not by key
        #expect(remote.overapplied.isEmpty)
    }

    struct Todo: Identifiable, Codable, Sendable, Equatable {
        var id: UUID
        var title: String
    }

    /// The reader's view model for "SpyRepository".
    @MainActor final class TodoListModel {
        let repository: any Repository<Todo, UUID>
        init(repository: any Repository<Todo, UUID>) { self.repository = repository }

        func add(_ title: String) async {
            do {
                try await repository.save(Todo(id: UUID(), title: title))
            } catch {
                Issue.record(error)
            }
        }
    }

    @MainActor @Test func spyRepository() async {
        let spy = SpyRepository(InMemoryRepository<Todo>())
        let model = TodoListModel(repository: spy)
        await model.add("Buy milk")
        #expect(spy.operations == [.save])
        #expect(spy.calls[0].entities.map(\.title) == ["Buy milk"])
    }

    struct Product: Identifiable, Codable, Sendable, Equatable {
        var id: Int
        var name: String

        static let milk = Product(id: 1, name: "Milk")
        static let bread = Product(id: 2, name: "Bread")
    }

    /// "FaultInjectingRepository".
    func faultInjecting(clock: ManualClock) -> FaultInjectingRepository<InMemoryRepository<Product>> {
        let remote = FaultInjectingRepository(InMemoryRepository<Product>(), clock: clock)
        remote.failNext(2, of: .fetchAll, with: RepositoryError.unavailable("offline"))
        remote.failNext(of: .save, with: RepositoryError.unavailable("response lost"), when: .afterBase)
        remote.addLatency(.seconds(3), to: [.fetch])  // sleeps on `clock`
        remote.injectRandomFaults(probability: 0.1, seed: 7)  // the same faults for the same seed
        return remote
    }

    /// "AnyRepository.unimplemented".
    func unimplemented() -> AnyRepository<Product, Int> {
        var products = AnyRepository<Product, Int>.unimplemented("products")
        products.onFetchAll = { [.milk, .bread] }
        // Any other call fails the test: "Unimplemented: products.save(_:) was called.
        // Set products.onSave in this test if the call is expected."
        return products
    }

    @Test func anUnimplementedEndpointThrowsItsOwnError() async throws {
        let products = unimplemented()
        #expect(try await products.fetchAll() == [.milk, .bread])
        await withKnownIssue {  // the unexpected call is still reported as a failure
            await #expect(throws: UnimplementedEndpointError(dependency: "products", operation: .save)) {
                try await products.save(.milk)
            }
        }
    }

    @Test func manualClock() async throws {
        let clock = ManualClock()
        let task = Task { try await clock.sleep(for: .seconds(5)) }
        await clock.waitForSleepers(count: 1)
        await clock.advance(by: .seconds(5))  // sleepers wake in deadline order
        try await task.value
    }

    /// The reader's view model for "Gate and Gates": the newest load's answer wins.
    @MainActor @Observable final class ProductsModel {
        private(set) var products: [Product] = []
        private(set) var isLoading = false
        private let repository: AnyRepository<Product, Int>
        private var loads = 0

        init(repository: AnyRepository<Product, Int>) { self.repository = repository }

        func load() async {
            loads += 1
            let load = loads
            isLoading = true
            do {
                let answer = try await repository.fetchAll()
                guard load == loads else { return }
                products = answer
            } catch {
                Issue.record(error)
            }
            if load == loads { isLoading = false }
        }
    }

    @MainActor @Test func gate() async {
        let gate = Gate()
        var products = AnyRepository<Product, Int>.unimplemented("products")
        products.onFetchAll = {
            await gate.pass()  // the call waits here…
            return [.milk, .bread]
        }
        let model = ProductsModel(repository: products)

        let load = Task { await model.load() }
        await gate.waitForArrival()  // …once it is there, the test looks
        #expect(model.isLoading)
        gate.open()  // then lets it answer
        await load.value
        #expect(!model.isLoading)
    }

    @MainActor @Test func gates() async {
        var products = AnyRepository<Product, Int>.unimplemented("products")
        let gates = Gates(count: 2)
        products.onFetchAll = {
            let call = await gates.pass()  // 0, then 1, in order of arrival
            return call == 0 ? [.milk] : [.milk, .bread]
        }
        let model = ProductsModel(repository: products)
        let first = Task { await model.load() }
        await gates[0].waitForArrival()
        let second = Task { await model.load() }
        await gates[1].waitForArrival()
        gates[1].open()
        await second.value
        gates[0].open()
        await first.value
        #expect(model.products == [.milk, .bread])
    }
}

/// The reader's store in the XCTest snippet; the in-memory one stands in for it.
private typealias MyStore<Entity: Identifiable & Sendable> = InMemoryRepository<Entity>

// The XCTest snippet, at the top level, where XCTest finds test cases on Linux. It runs.
final class MyStoreTests: XCTestCase {
    func testConforms() async {
        await RepositoryConformance(makeRepository: { MyStore<ConformanceEntity>() })
            .expectConformance()
    }

    func testConcurrency() async throws {
        try await RepositoryConformance(makeRepository: { MyStore<ConformanceEntity>() })
            .concurrency()
    }
}
