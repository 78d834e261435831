import Repositories
import RepositoriesTestSupport
import RepositoriesTesting
import Testing

/// A store's feed wrapped in any decorator is still a feed, and keeps every law.
@Suite struct ChangeFeedDecoratorTests {
    typealias Store = InMemoryRepository<ConformanceEntity>

    /// The record a mapped store keeps: the fixture, inside a wrapper of its own.
    struct StoredRecord: Identifiable, Sendable, Equatable {
        var id: Int
        var body: ConformanceEntity
    }

    enum Decorator: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case retrying, timeout, circuitBreaker, instrumented, observed, coalescing, readOnly, mapped
        var testDescription: String { rawValue }
    }

    /// Runs ChangeFeedConformance over `wrap(store)`, expiring cursors through `expire`.
    func conforms<Feed: ChangeFeedRepository>(
        _ wrap: @escaping @Sendable () -> Feed, expire: @escaping @Sendable (Feed) -> Void,
        writableStore: (@Sendable (Feed) -> any Repository<ConformanceEntity, Int>)? = nil
    ) async throws where Feed.Entity == ConformanceEntity {
        // The decorators only pass the feed on: fewer concurrent writes than the stores' own
        // runs, so the eight runs do not crowd the rest of the suite on a two-core machine.
        let options = ChangeFeedConformanceOptions<Feed>(
            expireCursors: { expire($0) }, writableStore: writableStore, concurrentWriters: 4,
            writesPerWriter: 40)
        try await ChangeFeedConformance(options: options, makeRepository: wrap).run()
    }

    @Test(arguments: Decorator.allCases)
    func aDecoratedFeedKeepsEveryLaw(_ decorator: Decorator) async throws {
        switch decorator {
        case .retrying:
            try await conforms({ Store().retrying() }, expire: { $0.base.forgetDeletions() })
        case .timeout:
            try await conforms({ Store().timeout(.seconds(60)) }, expire: { $0.base.forgetDeletions() })
        case .circuitBreaker:
            try await conforms({ Store().circuitBreaker() }, expire: { $0.base.forgetDeletions() })
        case .instrumented:
            try await conforms({ Store().instrumented { _ in } }, expire: { $0.base.forgetDeletions() })
        case .observed:
            try await conforms({ Store().observed() }, expire: { $0.base.forgetDeletions() })
        case .coalescing:
            try await conforms({ Store().coalescing() }, expire: { $0.base.forgetDeletions() })
        case .readOnly:
            // The view refuses writes; the suite makes them on the store beneath.
            try await conforms(
                { Store().readOnly() }, expire: { $0.base.forgetDeletions() }, writableStore: { $0.base })
        case .mapped:
            try await conforms(
                {
                    InMemoryRepository<StoredRecord>().mapped(
                        toDomain: { $0.body }, toStored: { StoredRecord(id: $0.id, body: $0) })
                }, expire: { $0.base.forgetDeletions() })
        }
    }

    @Test func readingTheFeedIsReportedAsAFetchAllAndAnExpiredCursorIsNotRetried() async throws {
        let events = Shared<[RepositoryEvent]>([])
        let feed = Store().instrumented { event in events.update { $0.append(event) } }.retrying()
        try await feed.save(.make(index: 1, revision: 0))
        let page = try await feed.changes(since: nil, limit: 10)
        #expect(page.saved == [.make(index: 1, revision: 0)])
        await #expect(throws: RepositoryError.self) {
            try await feed.changes(since: SyncCursor("not a cursor"), limit: 10)
        }
        #expect(events.value.map(\.operation) == [.save, .fetchAll, .fetchAll])
    }

    @Test func aMappedPageWithARecordThatCannotBeConvertedThrowsRatherThanSkipIt() async throws {
        struct Unreadable: Error {}
        let records = InMemoryRepository<StoredRecord>()
        let feed = records.mapped(
            toDomain: { record -> ConformanceEntity in
                guard record.id != 2 else { throw Unreadable() }
                return record.body
            }, toStored: { StoredRecord(id: $0.id, body: $0) })
        try await feed.save(contentsOf: [.make(index: 1, revision: 0), .make(index: 2, revision: 0)])
        let error = await #expect(throws: RepositoryError.self) {
            try await feed.changes(since: nil, limit: 10)
        }
        #expect(error?.code == .decodingFailed)
    }

    /// Each forwarding decorator hands a subset's page to the store beneath, so an API that
    /// selects the subset still does behind `.retrying()`; `.mapped`, whose subset is over the
    /// converted values, reads the plain page and restricts it on the device.
    @Test(arguments: Decorator.allCases)
    func aSubsetsPageReachesTheStoreBeneath(_ decorator: Decorator) async throws {
        let store = HookedFeed<ConformanceEntity>()
        try await store.save(contentsOf: [.make(index: 1, revision: 1), .make(index: 2, revision: 2)])
        let subset = Query<ConformanceEntity>().where(\.revision == 1)
        let page: ChangePage<ConformanceEntity, Int>
        switch decorator {
        case .retrying: page = try await store.retrying().changes(since: nil, limit: 10, in: subset)
        case .timeout: page = try await store.timeout(.seconds(60)).changes(since: nil, limit: 10, in: subset)
        case .circuitBreaker:
            page = try await store.circuitBreaker().changes(since: nil, limit: 10, in: subset)
        case .instrumented:
            page = try await store.instrumented { _ in }.changes(since: nil, limit: 10, in: subset)
        case .observed: page = try await store.observed().changes(since: nil, limit: 10, in: subset)
        case .coalescing: page = try await store.coalescing().changes(since: nil, limit: 10, in: subset)
        case .readOnly: page = try await store.readOnly().changes(since: nil, limit: 10, in: subset)
        case .mapped:
            page = try await store.mapped(toDomain: { $0 }, toStored: { $0 }).changes(
                since: nil, limit: 10, in: subset)
        }
        #expect(page.saved.map(\.id) == [1] && page.deleted == [2])
        let expected = decorator == .mapped ? (subset: 0, plain: 1) : (subset: 1, plain: 0)
        #expect(
            store.calls.subset == expected.subset && store.calls.plain == expected.plain, "\(store.calls)")
    }
}
