import Foundation
import Repositories
import RepositoriesHTTP
import RepositoriesTestSupport
import RepositoriesTesting
import Synchronization
import Testing

/// The PostgREST variant of the change feed (`ChangeFeed.postgREST`) over a soft-deleting
/// table (`Configuration.softDeleting(column:)`): the feed laws against the fixture server's
/// PostgREST emulation, the exact requests, the lag's bound on the cursor, and an offline-first
/// device syncing through it.
@Suite(.serialized) struct PostgRESTChangeFeedTests {
    /// A PostgREST configuration that soft-deletes on `deleted` and serves the feed.
    static func configuration<E: Codable & Identifiable & Sendable>(
        lag: Duration = .seconds(5), retention: Duration? = nil
    ) -> HTTPRepository<E>.Configuration where E.ID: Codable & Sendable {
        var configuration = HTTPRepository<E>.Configuration.postgREST(apiKey: "anon-key")
        configuration.softDeleting(column: "deleted")
        configuration.changeFeed = .postgREST(
            updatedAt: "updated_at", deleted: "deleted", primaryKey: "id", lag: lag, retention: retention)
        return configuration
    }

    static let project = URL(string: "https://project.supabase.co/rest/v1/todos")!

    /// Every law of `ChangeFeedConformance` holds over the fixture's tables, none skipped.
    ///
    /// The fixture stamps each write as it commits, one at a time, so no write can land behind
    /// a cursor: `lag: .zero` turns the bound off, as the laws need (the bound hands recent rows
    /// out again, which `untouchedEntitiesStayOut` counts as untouched rows coming back;
    /// `theLagHoldsTheLastPageBack` checks the bound). PostgREST forgets nothing by itself:
    /// cursors expire by `retention`, so `expireCursors` moves the server's clock past it and
    /// purges the soft-deleted rows, as a retention job would.
    @Test func theVariantKeepsEveryLawOfAFeed() async throws {
        try await withFixtureServer { server in
            @Sendable func open(_ url: URL) -> HTTPRepository<ConformanceEntity> {
                HTTPRepository(
                    baseURL: url, configuration: Self.configuration(lag: .zero, retention: .seconds(3_600)))
            }
            let report = try await ChangeFeedConformance(
                options: ChangeFeedConformanceOptions(
                    expireCursors: { repository in
                        try await server.advanceClock(seconds: 3_601)
                        try await server.purgeSoftDeleted(repository.baseURL)
                    },
                    reopen: { open($0.baseURL) },
                    // Every write is a loopback request: 4 × 60 keeps the law's interleavings.
                    concurrentWriters: 4, writesPerWriter: 60),
                makeRepository: { open(server.newFeedTable()) }
            ).run()
            #expect(report.skipped.isEmpty, "\(report)")
            #expect(Set(report.passed) == Set(ChangeFeedLaw.allCases), "\(report)")
        }
    }

    /// Without `retention` a cursor never expires (the table keeps its soft-deleted rows), so
    /// a run without `expireCursors` skips the law about forgotten deletions, and only it.
    @Test func withoutRetentionOnlyTheExpiryLawIsSkipped() async throws {
        try await withFixtureServer { server in
            let report = try await ChangeFeedConformance(
                makeRepository: {
                    HTTPRepository<ConformanceEntity>(
                        baseURL: server.newFeedTable(), configuration: Self.configuration(lag: .zero))
                }
            ).check([.readFromNilDeliversEveryEntity, .forgottenDeletionsExpireCursors])
            #expect(report.skipped.map(\.law) == [.forgottenDeletionsExpireCursors], "\(report)")
            #expect(report.passed == [.readFromNilDeliversEveryEntity], "\(report)")
        }
    }

    /// The first page reads the rows not deleted; the next, the rows after the last one in
    /// (`updated_at`, `id`) order, in PostgREST's `or`/`and` syntax with the timestamp quoted.
    /// A deleted row is a tombstone; a page of `limit` rows says more follow.
    @Test func aPageAsksForTheRowsAfterTheCursorInPostgRESTsSyntax() async throws {
        let transport = RecordingTransport { sent in
            sent.url.query?.contains("or=") == true
                ? (200, [:], "[]")
                : (
                    200, [:],
                    "[" + Self.row(1, "Buy milk", at: "2024-05-01T09:30:00.5+00:00") + ","
                        + Self.row(2, "Gone", at: "2024-05-01T09:30:00.5+00:00", deleted: true) + "]"
                )
        }
        let todos = HTTPRepository<Todo>(
            baseURL: Self.project, configuration: Self.configuration(), transport: transport)
        #expect(todos.servesChangeFeed)

        let first = try await todos.changes(since: nil, limit: 2)
        #expect(first.saved == [.milk] && first.deleted == [2] && first.hasMore, "\(first)")
        let second = try await todos.changes(since: first.next, limit: 2)
        #expect(second.saved.isEmpty && second.deleted.isEmpty && !second.hasMore)
        #expect(second.next == first.next, "an empty page leaves the cursor where it was")

        let time = "%222024-05-01T09:30:00.5%2B00:00%22"
        #expect(
            transport.requests.map(\.line) == [
                "GET /rest/v1/todos?deleted=is.false&order=updated_at.asc,id.asc&limit=2",
                "GET /rest/v1/todos?or=(updated_at.gt.\(time),and(updated_at.eq.\(time),id.gt.2))"
                    + "&order=updated_at.asc,id.asc&limit=2",
            ])
        #expect(
            transport.requests.allSatisfy { sent in
                sent.headers.first { $0.key.lowercased() == "apikey" }?.value == "anon-key"
            })
    }

    /// A cursor altered, made up, or issued for another table is `cursorExpired`, and nothing
    /// is sent for it.
    @Test func aCursorNotIssuedForTheTableIsExpiredBeforeAnyRequest() async throws {
        let transport = RecordingTransport { _ in
            (200, [:], "[" + Self.row(1, "Buy milk", at: "2024-05-01T09:30:00+00:00") + "]")
        }
        let todos = HTTPRepository<Todo>(
            baseURL: Self.project, configuration: Self.configuration(), transport: transport)
        let others = HTTPRepository<Todo>(
            baseURL: Self.project.deletingLastPathComponent().appending(path: "chores"),
            configuration: Self.configuration(), transport: transport)
        let cursor = try await todos.changes(since: nil, limit: 10).next
        let forged = [
            SyncCursor(""), SyncCursor("2024-05-01T09:30:00+00:00|1"), SyncCursor(cursor.token + "0"),
            SyncCursor(cursor.token.replacingOccurrences(of: "|1|", with: "|2|")),
        ]
        for forgery in forged {
            let error = await #expect(throws: RepositoryError.self) {
                try await todos.changes(since: forgery, limit: 10)
            }
            #expect(error?.code == .cursorExpired, "\(forgery): \(String(describing: error))")
        }
        let error = await #expect(throws: RepositoryError.self) {
            try await others.changes(since: cursor, limit: 10)
        }
        #expect(error?.code == .cursorExpired, "\(String(describing: error))")
        #expect(transport.requests.count == 1, "only the first read was sent")
        _ = try await todos.changes(since: cursor, limit: 10)
        #expect(transport.requests.count == 2, "the table's own cursor is answered")
    }

    /// On a last page the cursor never passes the server's clock (`Date`) minus the lag: the
    /// rows stamped later come again on the next read, until the clock has moved past them. A
    /// full page is never held back; without a `Date` header the cursor stays at the last row.
    @Test func theLagHoldsTheLastPageBack() async throws {
        let older = Self.row(1, "Buy milk", at: "2024-05-01T09:30:01+00:00")
        let newer = Self.row(2, "Buy bread", at: "2024-05-01T09:30:07.25+00:00")
        let newest = Self.row(3, "Buy eggs", at: "2024-05-01T09:30:08+00:00")
        let at10 = ["Date": "Wed, 01 May 2024 09:30:10 GMT"]  // lag 5 s: the bound is 09:30:05
        let answers = Answers([
            (200, at10, "[\(older),\(newer)]"),  // 1: from nil, a last page
            (200, at10, "[\(newer)]"),  // 2: newer again, still inside the lag
            (200, ["Date": "Wed, 01 May 2024 09:30:20 GMT"], "[\(newer)]"),  // 3: past the lag
            (200, ["Date": "Wed, 01 May 2024 09:30:20 GMT"], "[]"),  // 4: after it
            (200, at10, "[\(newer),\(newest)]"),  // 5: from nil, a full page of rows inside the lag
            (200, at10, "[]"),  // 6: the last page after it, its cursor past the bound
            (200, at10, "[]"),  // 7: from the bound
            (200, at10, "[\(newer)]"),  // 8: from nil, every row inside the lag
            (200, at10, "[]"),  // 9: from the bound
            (200, [:], "[\(older),\(newer)]"),  // 10: from nil, no Date header
            (200, [:], "[]"),  // 11: from the last row
        ])
        let transport = RecordingTransport { _ in answers.next() }
        let todos = HTTPRepository<Todo>(
            baseURL: Self.project, configuration: Self.configuration(lag: .seconds(5)), transport: transport)

        let first = try await todos.changes(since: nil, limit: 10)
        #expect(first.saved.map(\.id) == [1, 2] && !first.hasMore)
        let second = try await todos.changes(since: first.next, limit: 10)
        #expect(second.saved.map(\.id) == [2], "the row inside the lag is delivered again")
        #expect(second.next == first.next, "and the cursor still stops before it")
        let third = try await todos.changes(since: second.next, limit: 10)
        #expect(third.saved.map(\.id) == [2] && third.next != second.next)
        _ = try await todos.changes(since: third.next, limit: 10)

        let full = try await todos.changes(since: nil, limit: 2)
        #expect(full.hasMore, "a full page")
        let afterFull = try await todos.changes(since: full.next, limit: 2)
        _ = try await todos.changes(since: afterFull.next, limit: 2)

        let recent = try await todos.changes(since: nil, limit: 10)
        _ = try await todos.changes(since: recent.next, limit: 10)

        let undated = try await todos.changes(since: nil, limit: 10)
        _ = try await todos.changes(since: undated.next, limit: 10)

        func after(_ stamp: String, _ id: Int) -> String {
            let time = "%22" + stamp.replacingOccurrences(of: "+", with: "%2B") + "%22"
            return "or=(updated_at.gt.\(time),and(updated_at.eq.\(time),id.gt.\(id)))"
        }
        let order = "order=updated_at.asc,id.asc"
        #expect(
            transport.requests.map(\.line) == [
                "GET /rest/v1/todos?deleted=is.false&\(order)&limit=10",
                "GET /rest/v1/todos?\(after("2024-05-01T09:30:01+00:00", 1))&\(order)&limit=10",
                "GET /rest/v1/todos?\(after("2024-05-01T09:30:01+00:00", 1))&\(order)&limit=10",
                "GET /rest/v1/todos?\(after("2024-05-01T09:30:07.25+00:00", 2))&\(order)&limit=10",
                "GET /rest/v1/todos?deleted=is.false&\(order)&limit=2",
                "GET /rest/v1/todos?\(after("2024-05-01T09:30:08+00:00", 3))&\(order)&limit=2",
                "GET /rest/v1/todos?updated_at=gte.2024-05-01T09:30:05Z&\(order)&limit=2",
                "GET /rest/v1/todos?deleted=is.false&\(order)&limit=10",
                "GET /rest/v1/todos?updated_at=gte.2024-05-01T09:30:05Z&\(order)&limit=10",
                "GET /rest/v1/todos?deleted=is.false&\(order)&limit=10",
                "GET /rest/v1/todos?\(after("2024-05-01T09:30:07.25+00:00", 2))&\(order)&limit=10",
            ])
    }

    /// `softDeleting(column:)`: reads skip deleted rows, deletes mark them with `PATCH`, saves
    /// set the column back, and a create of a deleted ID takes its row back; the rows stay.
    @Test func softDeletesMarkTheColumnAndReadsSkipDeletedRows() async throws {
        try await withFixtureServer { server in
            let url = server.newFeedTable()
            let todos = HTTPRepository<Todo>(baseURL: url, configuration: Self.configuration())
            try await todos.save(contentsOf: Todo.numbered(4))
            try await todos.delete(id: 1)
            try await todos.delete(ids: [2, 3])
            #expect(try await todos.fetch(id: 1) == nil)
            #expect(try await todos.fetchAll() == [Todo(id: 4, title: "Todo 4")])
            #expect(try await todos.count() == 1)
            try await todos.save(Todo(id: 1, title: "Saved again"))
            #expect(try await todos.fetch(id: 1) == Todo(id: 1, title: "Saved again"))
            try await todos.deleteAll()
            #expect(try await todos.count() == 0)
            try await todos.saveIfAbsent(Todo(id: 2, title: "Created again"))
            #expect(try await todos.fetchAll() == [Todo(id: 2, title: "Created again")])

            let rows = HTTPRepository<Todo>(baseURL: url, configuration: .postgREST(apiKey: "anon-key"))
            #expect(try await rows.count() == 4, "every row stays, three of them deleted")

            let path = url.path
            let log = try await server.log(url)
            #expect(
                log.prefix(12).map(\.line) == [
                    "POST \(path)", "PATCH \(path)?id=eq.1&deleted=is.false",
                    "PATCH \(path)?id=in.(2,3)&deleted=is.false", "GET \(path)?id=eq.1&deleted=is.false",
                    "GET \(path)?offset=0&limit=1000&deleted=is.false",
                    "GET \(path)?select=id&limit=1&deleted=is.false", "POST \(path)",
                    "GET \(path)?id=eq.1&deleted=is.false", "PATCH \(path)?id=not.is.null&deleted=is.false",
                    "GET \(path)?select=id&limit=1&deleted=is.false", "POST \(path)",
                    "GET \(path)?offset=0&limit=1000&deleted=is.false",
                ])
            #expect(log.filter { $0.method == "PATCH" }.allSatisfy { $0.body == #"{"deleted":true}"# })
            #expect(log[6].body?.hasSuffix(#","deleted":false}"#) == true, "\(log[6].body ?? "")")
            #expect(log[10].header("Prefer") == "return=representation", "a create is an insert")
        }
    }

    /// The soft-deleting configuration keeps every repository law but the migrations'.
    @Test func aSoftDeletingTableKeepsTheRepositoryLaws() async throws {
        try await withFixtureServer { server in
            var options = ConformanceOptions<HTTPRepository<ConformanceEntity>>()
            options.reopen = { HTTPRepository(baseURL: $0.baseURL, configuration: $0.configuration) }
            options.makeUnencodableEntity = { ConformanceEntity.unencodable(index: $0) }
            let report = try await RepositoryConformance(
                options: options,
                makeRepository: {
                    HTTPRepository<ConformanceEntity>(
                        baseURL: server.newFeedTable(), configuration: Self.configuration())
                },
                makeEntity: ConformanceEntity.make
            ).run()
            #expect(
                report.violations.isEmpty && report.skipped.allSatisfy { $0.law.area == .migrations },
                "\(report)")
        }
    }

    /// A device syncing through the feed: after its first sync, one request when nothing
    /// changed; another client's edit, soft delete and create come in one page (and again while
    /// they are inside the lag, changing nothing); an ID deleted and saved again, elsewhere or
    /// on the device, comes back.
    @Test func anOfflineFirstDeviceSyncsIncrementallyWithPostgREST() async throws {
        try await withFixtureServer { server in
            let url = server.newFeedTable()
            let directory = try TemporaryDirectory()
            let local = try await FileRepository<Todo>(fileURL: directory.file("todos.store"))
            let device = HTTPRepository<Todo>(baseURL: url, configuration: Self.configuration()).offlineFirst(
                local: local, outbox: try await Outbox<Todo>(fileURL: directory.file("todos.outbox")),
                automaticSync: nil)
            let elsewhere = HTTPRepository<Todo>(baseURL: url, configuration: Self.configuration())
            @Sendable func inStep() async throws {
                #expect(
                    try await local.fetchAll().sorted { $0.id < $1.id }
                        == (try await elsewhere.fetchAll()).sorted { $0.id < $1.id })
            }
            try await elsewhere.save(contentsOf: Todo.numbered(30))
            try await server.advanceClock(seconds: 10)  // past the 5 s lag

            let first = try await device.sync()
            #expect(first.received == 30 && !first.pullWasIncremental, "\(first)")
            let idle = try await device.sync()
            #expect(idle.pullWasIncremental && idle.received == 0 && idle.requests == 1, "\(idle)")

            try await elsewhere.save(Todo(id: 5, title: "Edited elsewhere"))
            try await elsewhere.delete(id: 6)
            try await elsewhere.save(Todo(id: 31, title: "Created elsewhere"))
            let pulled = try await device.sync()
            #expect(pulled.pullWasIncremental && pulled.received == 3 && pulled.requests == 1, "\(pulled)")
            #expect(try await local.fetch(id: 6) == nil, "the soft delete arrived as a deletion")
            try await inStep()
            let insideLag = try await device.sync()
            #expect(insideLag.pullWasIncremental && insideLag.requests == 1, "\(insideLag)")
            try await inStep()
            try await server.advanceClock(seconds: 10)
            _ = try await device.sync()
            let settled = try await device.sync()
            #expect(settled.received == 0 && settled.requests == 1, "\(settled)")

            try await elsewhere.delete(id: 7)
            try await server.advanceClock(seconds: 10)
            _ = try await device.sync()
            #expect(try await local.fetch(id: 7) == nil)
            try await elsewhere.save(Todo(id: 7, title: "Saved again elsewhere"))
            try await server.advanceClock(seconds: 10)
            _ = try await device.sync()
            #expect(try await local.fetch(id: 7) == Todo(id: 7, title: "Saved again elsewhere"))

            try await device.delete(id: 8)
            _ = try await device.sync()
            #expect(try await elsewhere.fetch(id: 8) == nil)
            try await device.save(Todo(id: 8, title: "Created again here"))
            let created = try await device.sync()
            #expect(created.rejections.isEmpty, "\(created)")
            #expect(try await elsewhere.fetch(id: 8) == Todo(id: 8, title: "Created again here"))
            try await inStep()
        }
    }

    // MARK: - Helpers

    /// A row of the `todos` table as PostgREST answers it.
    static func row(_ id: Int, _ title: String, at stamp: String, deleted: Bool = false) -> String {
        #"{"id": \#(id), "title": "\#(title)", "done": false, "updated_at": "\#(stamp)", "deleted": \#(deleted)}"#
    }

    /// Answers handed out one per request, in order.
    final class Answers: Sendable {
        private let queue: Mutex<[RecordingTransport.Answer]>

        init(_ answers: [RecordingTransport.Answer]) {
            queue = Mutex(answers)
        }

        /// The next answer; `500` once they run out.
        func next() -> RecordingTransport.Answer {
            queue.withLock { $0.isEmpty ? (500, [:], "no answer scripted") : $0.removeFirst() }
        }
    }
}
