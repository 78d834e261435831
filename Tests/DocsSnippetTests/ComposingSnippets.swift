import Foundation
import Repositories
import RepositoriesHTTP
import RepositoriesSQLite
import RepositoriesTesting
import Testing

/// The Swift snippets of Docs/Composing.md, verbatim; "Testing a stack" runs.
@Suite struct ComposingSnippets {
    struct Product: Identifiable, Codable, Sendable, Equatable {
        var id: Int
        var name: String
    }

    struct Fact: Identifiable, Codable, Sendable {
        var id: Int
        var text: String
    }

    struct Todo: Identifiable, Codable, Sendable {
        var id: UUID
        var title: String
    }

    /// What the app stores for a person (a DTO).
    struct PersonRecord: Identifiable, Codable, Sendable {
        var id: UUID
        var fullName: String

        init(person: Person) {
            self.id = person.id
            self.fullName = person.name
        }
    }

    /// The domain's person.
    struct Person: Identifiable, Sendable {
        var id: UUID
        var name: String

        init(record: PersonRecord) {
            self.id = record.id
            self.name = record.fullName
        }
    }

    struct Mahsulot: Identifiable, Codable, Sendable {
        var id: Int
        var nomi: String
    }

    struct Meteorite: Identifiable, Codable, Sendable {
        var id: Int
        var latitude: Double
        var longitude: Double

        /// Metres to `place`, roughly.
        func distance(to place: (latitude: Double, longitude: Double)) -> Double {
            ((latitude - place.latitude) * (latitude - place.latitude)
                + (longitude - place.longitude) * (longitude - place.longitude)).squareRoot() * 111_000
        }
    }

    /// A stand-in for swift-log's `Logger`, with the call the snippet makes.
    struct Logger: Sendable {
        enum Level { case debug, error }
        func log(level: Level, _ message: @autoclosure () -> String) {}
    }

    /// The introduction's stack.
    func introduction(api: HTTPRepository<Product>, productsURL: URL) async throws {
        // `api`: the remote, an HTTPRepository or your own client.
        let products = api.timeout(.seconds(5))  // each attempt
            .circuitBreaker(.default)  // stop calling a dead API for a while
            .retrying(.default)  // transient failures, with backoff
            .fallback(to: try await FileRepository<Product>(fileURL: productsURL))
            .cached(in: InMemoryRepository<Cached<Product>>(), timeToLive: .seconds(60))
            .observed()  // live values for the screens
        _ = products
    }

    func render(_ product: Product?, badge: String?) {}

    /// `RemoteFirstRepository`.
    func remoteFirst(api: HTTPRepository<Product>, file: FileRepository<Product>) async throws {
        let products = api.fallback(to: file)  // remote first
        let browsing = products.reading(.localFirst)  // same mirror, local first
        let picky = api.fallback(to: file, when: { ($0 as? RepositoryError)?.code != .rejected })

        for try await update in products.values(id: 42) {  // local, then remote
            let badge = update.origin == .local ? "saved \(update.age.map { "\($0)" } ?? "earlier")" : nil
            render(update.value, badge: badge)
        }
        _ = (browsing, picky)
    }

    struct PersonEntity: Identifiable, Codable, Sendable {
        var id: Int
        var name: String
    }

    /// What the two-tier decorators share: a partial write.
    func partialWrite(
        people: some Repository<PersonEntity, Int>, person: PersonEntity
    ) async throws -> String? {
        var notice: String?
        do {
            try await people.save(person)
        } catch let error as RepositoryError where error.code == .partiallyApplied {
            notice = "Saved. This device's copy will catch up on the next refresh."
        }
        return notice
    }

    /// `CacheAsideRepository`.
    func cacheAside(api: HTTPRepository<Fact>, cacheURL: URL) async throws {
        let cache = try await FileRepository<Cached<Fact>>(fileURL: cacheURL)  // survives restarts
        let facts = api.cached(in: cache, timeToLive: .seconds(3_600))
        await facts.invalidate(id: 7)  // next read goes to the API
    }

    /// `WriteThroughRepository`.
    func writeThrough(file: FileRepository<Todo>) -> some Repository<Todo, UUID> {
        let todos = file.writeThrough(to: InMemoryRepository<Todo>())
        return todos
    }

    /// `CoalescingRepository`.
    func coalescing(api: HTTPRepository<Product>) -> some Repository<Product, Int> {
        let feed = api.coalescing()  // 1,000 concurrent fetch(id: 1) → one call to api
        return feed
    }

    /// `RetryingRepository`.
    func retrying(remote: HTTPRepository<Product>) -> some Repository<Product, Int> {
        let api = remote.retrying(
            RetryPolicy(maxAttempts: 4, baseDelay: .milliseconds(250), maxDelay: .seconds(8)))
        return api
    }

    /// `CircuitBreakerRepository`.
    func circuitBreaker(remote: HTTPRepository<Product>) -> CircuitBreakerState {
        let policy = CircuitBreakerPolicy(
            failureRatio: 0.5, minimumCalls: 10, windowSize: 20, breakDuration: .seconds(30))
        let api = remote.circuitBreaker(policy)
        let state = api.state  // .closed, .open or .halfOpen
        return state
    }

    func render(_ todos: [Todo]) {}
    func render(_ todo: Todo?) {}
    func log(_ change: RepositoryChange<Todo>) {}

    /// `ObservedRepository`.
    func observed(store: FileRepository<Todo>, id: UUID) async throws {
        let todos = store.observed()
        for try await list in todos.valuesAll() { render(list) }  // now, then after every change
        for try await todo in todos.values(id: id) { render(todo) }  // nil once deleted
        for await change in todos.changes() { log(change) }  // .saved, .deleted, .invalidated…
        await todos.invalidate(id: id)  // pushed from elsewhere
    }

    /// `InstrumentedRepository`.
    func instrumented(remote: HTTPRepository<Product>, logger: Logger) -> some Repository<Product, Int> {
        let api = remote.instrumented(label: "products") { event in
            logger.log(level: event.outcome.isSuccess ? .debug : .error, "\(event)")
            // "products fetchAll() succeeded in 0.21 seconds"
        }
        return api
    }

    /// `MappedRepository`.
    func mapped() -> some Repository<Person, UUID> {
        let people = UserDefaultsRepository<PersonRecord>(key: "people")
            .mapped(toDomain: Person.init(record:), toStored: PersonRecord.init(person:))
        return people
    }

    /// The screen state of the Mahsulot recipe.
    enum ScreenState {
        case loading
        case loaded([Mahsulot], waiting: Int)
    }

    /// Recipe: Mahsulot.
    func mahsulotRecipe(api: HTTPRepository<Mahsulot>, url: URL, outboxURL: URL) async throws -> ScreenState {
        var state = ScreenState.loading
        let products = api.timeout(.seconds(10)).circuitBreaker(.default).retrying(.default)
            .offlineFirst(
                local: try await FileRepository<Mahsulot>(fileURL: url),
                outbox: try await Outbox<Mahsulot>(fileURL: outboxURL), conflicts: .lastWriterWins)
        // The view model shows the device's list and how many saves wait, after every change:
        for try await snapshot in products.values(Query()) {
            state = .loaded(snapshot.entities, waiting: snapshot.pendingIDs.count)
        }
        return state
    }

    /// Recipe: Meteorite.
    func meteoriteRecipe(
        api: HTTPRepository<Meteorite>, dbURL: URL, here: (latitude: Double, longitude: Double)
    ) async throws -> [Meteorite] {
        let database = try await SQLiteRepository<Meteorite>(fileURL: dbURL)
        let meteorites = api.retrying(.default).fallback(to: database)
        let nearby = try await meteorites.fetch(Query<Meteorite>().filter { $0.distance(to: here) < 100_000 })
        return nearby
    }

    /// Recipe: NumberFacts.
    func numberFactsRecipe(
        api: HTTPRepository<Fact>, cacheURL: URL
    ) async throws -> some Repository<Fact, Int> {
        let cache = try await FileRepository<Cached<Fact>>(fileURL: cacheURL)
        let facts = api.cached(in: cache, timeToLive: .seconds(86_400))
        // In the effect: try await facts.require(id: number). Tests use AnyRepository.unimplemented
        // and override onFetch, or a cached stack over InMemoryRepository with a ManualClock.
        return facts
    }

    /// Recipe: Todo.
    func todoRecipe(api: HTTPRepository<Todo>, url: URL, outboxURL: URL) async throws
        -> any SyncingRepository<Todo, UUID>
    {
        let todos: any SyncingRepository<Todo, UUID> = api.offlineFirst(
            local: try await FileRepository<Todo>(fileURL: url),
            outbox: try await Outbox<Todo>(fileURL: outboxURL), conflicts: .lastWriterWins)
        return todos
    }

    /// Recipe: Person.
    func personRecipe(edited: Person) async throws -> Person {
        var edited = edited
        let people = UserDefaultsRepository<PersonRecord>(key: "people")
            .mapped(toDomain: Person.init, toStored: PersonRecord.init)
        do {
            try await people.save(edited)
        } catch {
            edited = try await people.require(id: edited.id)  // nothing partial was written
        }
        return edited
    }

    /// "Testing a stack", run: two failures, two backoffs on the manual clock, then the answer.
    func testingAStack() async throws -> [Product] {
        let clock = ManualClock()
        let remote = FaultInjectingRepository(InMemoryRepository<Product>(), clock: clock)
        remote.failNext(2, of: .fetchAll, with: RepositoryError.unavailable("offline"))
        let products = remote.retrying(RetryPolicy(baseDelay: .seconds(1), jitter: .none), clock: clock)
            .fallback(to: InMemoryRepository<Product>())

        let task = Task { try await products.fetchAll() }
        for backoff in [Duration.seconds(1), .seconds(2)] {  // without jitter: 1 s, then 2 s
            await clock.waitForSleepers(count: 1)
            await clock.advance(by: backoff)
        }
        let all = try await task.value  // the third attempt answered
        return all
    }

    @Test func theStackUnderTestAnswersOnTheThirdAttempt() async throws {
        #expect(try await testingAStack() == [])
    }
}
