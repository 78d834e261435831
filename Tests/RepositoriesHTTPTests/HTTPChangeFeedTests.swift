import Foundation
import Repositories
import RepositoriesHTTP
import RepositoriesTestSupport
import RepositoriesTesting
import Testing

/// `HTTPRepository`'s change feed: the wire convention of Docs/HTTP.md, kept against the
/// fixture server by the same laws every store's feed keeps, its exact requests and answers,
/// and an offline-first sync that pulls through it.
@Suite(.serialized) struct HTTPChangeFeedTests {
    private static func todos(_ url: URL) -> HTTPRepository<Todo> {
        HTTPRepository<Todo>(baseURL: url) { $0.changeFeed = .changesEndpoint() }
    }

    /// The convention, served by the fixture (`GET /<c>/changes`), keeps every law of
    /// `ChangeFeedConformance`, expiry and a reopened client included.
    @Test func theConventionKeepsEveryLawOfAFeed() async throws {
        try await withFixtureServer { server in
            @Sendable func open(_ url: URL) -> HTTPRepository<ConformanceEntity> {
                HTTPRepository<ConformanceEntity>(baseURL: url) { $0.changeFeed = .changesEndpoint() }
            }
            let report = try await ChangeFeedConformance(
                options: ChangeFeedConformanceOptions(
                    expireCursors: { try await server.forgetDeletions($0.baseURL) },
                    reopen: { open($0.baseURL) },
                    // Every write is a loopback request: 4 × 60 keeps the law's interleavings.
                    concurrentWriters: 4, writesPerWriter: 60),
                makeRepository: { open(server.newCollection()) }
            ).run()
            #expect(report.skipped.isEmpty, "\(report)")
        }
    }

    /// The first page is asked without `since`, the next from the cursor the last answered; the
    /// answer's keys are read as the coding reads keys, and an integer cursor is taken as text.
    @Test func aPageAsksFromTheCursorAndReadsTheAnswer() async throws {
        let transport = RecordingTransport { sent in
            sent.url.query?.contains("since=") == true
                ? (200, [:], #"{"saved": [], "deleted": [], "next_cursor": 43, "has_more": false}"#)
                : (
                    200, [:],
                    #"{"saved": [{"id": 1, "title": "Buy milk", "done": false}], "deleted": [3], "#
                        + #""next_cursor": 42, "has_more": true}"#
                )
        }
        var configuration = HTTPRepository<Todo>.Configuration.fastAPI()
        configuration.changeFeed = .changesEndpoint(nextKey: "next_cursor", moreKey: "has_more")
        let todos = HTTPRepository<Todo>(
            baseURL: URL(string: "https://api.example.com/todos/")!, configuration: configuration,
            transport: transport)
        #expect(todos.servesChangeFeed)

        let first = try await todos.changes(since: nil, limit: 2)
        #expect(first == ChangePage(saved: [.milk], deleted: [3], next: SyncCursor("42"), hasMore: true))
        let second = try await todos.changes(since: first.next, limit: 2)
        #expect(second == ChangePage(saved: [], deleted: [], next: SyncCursor("43"), hasMore: false))
        #expect(
            transport.requests.map(\.line) == [
                "GET /todos/changes?limit=2", "GET /todos/changes?since=42&limit=2",
            ])
    }

    /// Django's URLs end in `/`, the feed's too.
    @Test func theFeedPathFollowsTheTrailingSlash() async throws {
        let transport = RecordingTransport { _ in
            (200, [:], #"{"saved": [], "deleted": [], "next": "a", "more": false}"#)
        }
        var configuration = HTTPRepository<Todo>.Configuration.djangoREST()
        configuration.changeFeed = .changesEndpoint()
        let todos = HTTPRepository<Todo>(
            baseURL: URL(string: "https://api.example.com/todos")!, configuration: configuration,
            transport: transport)
        _ = try await todos.changes(since: SyncCursor("a b"), limit: 500)
        #expect(transport.requests.map(\.line) == ["GET /todos/changes/?since=a%20b&limit=500"])
    }

    /// `410 Gone` is the server saying the cursor is too old: `cursorExpired`, with the status
    /// and the server's words.
    @Test func aGoneCursorIsExpired() async throws {
        let transport = RecordingTransport { _ in (410, [:], #"{"error": "tombstones pruned"}"#) }
        let todos = HTTPRepository<Todo>(
            baseURL: URL(string: "https://api.example.com/todos")!,
            configuration: .init(changeFeed: .changesEndpoint()), transport: transport)
        let error = await #expect(throws: RepositoryError.self) {
            try await todos.changes(since: SyncCursor("old"), limit: 10)
        }
        #expect(error?.code == .cursorExpired, "\(String(describing: error))")
        #expect(error?.httpStatus == 410)
        #expect(error?.reason.contains("tombstones pruned") == true, "\(String(describing: error))")
    }

    /// An answer that is not a page is `decodingFailed` quoting it: a page read wrong would be
    /// applied and its cursor kept.
    @Test func anAnswerThatIsNotAPageIsRefused() async throws {
        let transport = RecordingTransport { _ in (200, [:], #"[{"id": 1, "title": "Buy milk"}]"#) }
        let todos = HTTPRepository<Todo>(
            baseURL: URL(string: "https://api.example.com/todos")!,
            configuration: .init(changeFeed: .changesEndpoint()), transport: transport)
        let error = await #expect(throws: RepositoryError.self) {
            try await todos.changes(since: nil, limit: 10)
        }
        #expect(error?.code == .decodingFailed, "\(String(describing: error))")
        #expect(error?.reason.contains("Buy milk") == true, "\(String(describing: error))")
    }

    /// Without a feed configured the repository says it serves none, sends nothing when asked,
    /// and an offline-first sync over it reads the collection and says why.
    @Test func withoutAFeedNothingIsSentAndASyncReadsInFull() async throws {
        let transport = RecordingTransport { _ in (200, [:], "[]") }
        let todos = HTTPRepository<Todo>(
            baseURL: URL(string: "https://api.example.com/todos")!, transport: transport)
        #expect(!todos.servesChangeFeed)
        let error = await #expect(throws: RepositoryError.self) {
            try await todos.changes(since: nil, limit: 10)
        }
        #expect(error?.code == .rejected)
        #expect(transport.requests.isEmpty)

        let directory = try TemporaryDirectory()
        let device = todos.offlineFirst(
            local: try await FileRepository<Todo>(fileURL: directory.file("todos.store")),
            outbox: try await Outbox<Todo>(fileURL: directory.file("todos.outbox")), automaticSync: nil)
        let report = try await device.sync()
        #expect(!report.pullWasIncremental)
        #expect(report.fullPullReason == "the remote has no change feed", "\(report)")
        #expect(transport.requests.map(\.line) == ["GET /todos"])
    }

    /// A device syncing through the feed: after its first sync, a sync with nothing to do is one
    /// request, another client's changes come in one page, and once the server forgets the
    /// deletions the device's cursor is refused and it reads in full, ending where the server is.
    @Test func anOfflineFirstSyncPullsOnlyWhatChanged() async throws {
        try await withFixtureServer { server in
            let url = server.newCollection()
            let directory = try TemporaryDirectory()
            let local = try await FileRepository<Todo>(fileURL: directory.file("todos.store"))
            let device = Self.todos(url).offlineFirst(
                local: local, outbox: try await Outbox<Todo>(fileURL: directory.file("todos.outbox")),
                automaticSync: nil)
            let elsewhere = Self.todos(url)
            try await elsewhere.save(contentsOf: Todo.numbered(30))

            let first = try await device.sync()
            #expect(first.received == 30 && !first.pullWasIncremental, "\(first)")
            let idle = try await device.sync()
            #expect(idle.pullWasIncremental && idle.received == 0 && idle.requests == 1, "\(idle)")

            try await elsewhere.save(Todo(id: 5, title: "Edited elsewhere"))
            try await elsewhere.delete(id: 6)
            try await elsewhere.save(Todo(id: 31, title: "Created elsewhere"))
            let pulled = try await device.sync()
            #expect(pulled.pullWasIncremental && pulled.received == 3 && pulled.requests == 1, "\(pulled)")
            #expect(
                try await local.fetchAll().sorted { $0.id < $1.id }
                    == (try await elsewhere.fetchAll()).sorted { $0.id < $1.id })

            try await elsewhere.delete(id: 7)
            try await server.forgetDeletions(url)
            let expired = try await device.sync()
            #expect(!expired.pullWasIncremental, "\(expired)")
            #expect(expired.fullPullReason?.contains("expired") == true, "\(expired)")
            #expect(try await local.fetch(id: 7) == nil)
            #expect(try await local.count() == 29)
            let after = try await device.sync()
            #expect(after.pullWasIncremental && after.requests == 1, "\(after)")
        }
    }
}
