import Foundation
import Repositories
import RepositoriesHTTP
import RepositoriesTestSupport
import RepositoriesTesting
import Testing

/// `SyncEndpoint`, the server half in Swift, over an `InMemoryRepository`, reached through
/// `HTTPRepository` and `SyncEndpointTransport`: every law of a repository and of a feed holds
/// through it, a write is applied once per idempotency key, and bad requests are refused with
/// a status and a reason.
@Suite struct SyncEndpointTests {
    static let base = URL(string: "https://sync.example/todos")!
    static let milk = #"{"id":1,"title":"Buy milk","done":false}"#
    static let once = #"{"id":7,"title":"Once","done":false}"#
    static let twice = #"{"id":7,"title":"Twice","done":false}"#

    static func client<Store>(_ endpoint: SyncEndpoint<Store>) -> HTTPRepository<Todo> {
        HTTPRepository<Todo>(
            baseURL: base, configuration: .init(changeFeed: .changesEndpoint()),
            transport: SyncEndpointTransport(endpoint, at: "/todos"))
    }

    /// The whole repository conformance suite, through the endpoint: what the client sees is a
    /// repository.
    @Test func aClientThroughTheEndpointKeepsEveryLawOfARepository() async throws {
        var options = ConformanceOptions<HTTPRepository<ConformanceEntity>>(
            unsupported: [.atomicBatches], concurrentTasks: 4, operationsPerTask: 200)
        options.reopen = {
            HTTPRepository(baseURL: $0.baseURL, configuration: $0.configuration, transport: $0.transport)
        }
        options.makeUnencodableEntity = { ConformanceEntity.unencodable(index: $0) }
        let report = try await RepositoryConformance(
            options: options,
            makeRepository: {
                HTTPRepository<ConformanceEntity>(
                    baseURL: Self.base, configuration: .init(changeFeed: .changesEndpoint()),
                    transport: SyncEndpointTransport(
                        SyncEndpoint(store: InMemoryRepository<ConformanceEntity>()), at: "/todos"))
            }
        ).run()
        #expect(!report.notes.contains { $0.hasPrefix("concurrency:") }, "\(report)")
    }

    /// The feed laws, through the endpoint's `/changes`; a subset's conditions go as the
    /// lookup convention's parameters, which the endpoint runs.
    @Test func theEndpointsFeedKeepsEveryLaw() async throws {
        var configuration = HTTPRepository<ConformanceEntity>.Configuration(
            changeFeed: .changesEndpoint(takesSubset: true))
        configuration.queries = .lookups(tiebreak: [])
        let report = try await ChangeFeedConformance(
            options: ChangeFeedConformanceOptions(concurrentWriters: 4, writesPerWriter: 100),
            makeRepository: { [configuration] in
                HTTPRepository<ConformanceEntity>(
                    baseURL: Self.base, configuration: configuration,
                    transport: SyncEndpointTransport(
                        SyncEndpoint(store: InMemoryRepository<ConformanceEntity>()), at: "/todos"))
            }
        ).run()
        // The client cannot reach the store behind the endpoint to forget its deletions, and
        // an in-memory store does not reopen: those two laws need hooks this setup lacks.
        #expect(
            Set(report.skipped.map(\.law)) == [.forgottenDeletionsExpireCursors, .cursorSurvivesReopen],
            "\(report)")
    }

    private func send(
        _ endpoint: SyncEndpoint<InMemoryRepository<Todo>>, _ method: String, _ path: String,
        key: String? = nil, headers: [String: String] = [:], body: String = ""
    ) async -> SyncResponse {
        var headers = headers
        if let key { headers["Idempotency-Key"] = key }
        return await endpoint.respond(
            to: SyncRequest(method: method, path: path, headers: headers, body: Data(body.utf8)))
    }

    /// A write sent again with its key is answered as the first time, and applied once; the
    /// key on another request is refused.
    @Test func aWriteIsAppliedOncePerKey() async throws {
        let store = InMemoryRepository<Todo>()
        let endpoint = SyncEndpoint(store: store)
        let first = await send(endpoint, "PUT", "/1", key: "k1", body: Self.milk)
        #expect(first.status == 201)
        try await store.save(Todo(id: 1, title: "Changed since"))
        let again = await send(endpoint, "PUT", "/1", key: "k1", body: Self.milk)
        #expect(again.status == 201 && again.headers["Idempotent-Replayed"] == "true")
        #expect(
            try JSONDecoder().decode(Todo.self, from: again.body) == Todo(id: 1, title: "Buy milk"),
            "answered as the first time: the entity it stored then")
        #expect(try await store.fetch(id: 1)?.title == "Changed since", "not applied again")

        let reused = await send(endpoint, "DELETE", "/1", key: "k1")
        #expect(reused.status == 422, "\(String(decoding: reused.body, as: UTF8.self))")
        #expect(try await store.fetch(id: 1) != nil)

        let deleted = await send(endpoint, "DELETE", "/1", key: "k2")
        #expect(deleted.status == 204)
        #expect(
            await send(endpoint, "DELETE", "/1", key: "k2").status == 204,
            "a replay answers as the first time")
        #expect(await send(endpoint, "DELETE", "/1", key: "k3").status == 404)
    }

    /// Many tasks sending one write with one key at once: it is applied once.
    @Test func oneKeySentByManyTasksAtOnceIsAppliedOnce() async throws {
        let store = InMemoryRepository<Todo>()
        let endpoint = SyncEndpoint(store: store)
        let statuses = await withTaskGroup(of: SyncResponse.self) { group in
            for _ in 0..<32 {
                group.addTask {
                    await self.send(endpoint, "POST", "", key: "create-7", body: Self.once)
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses.allSatisfy { $0.status == 201 }, "\(statuses.map(\.status))")
        #expect(statuses.filter { $0.headers["Idempotent-Replayed"] == nil }.count == 1)
        #expect(
            await send(endpoint, "POST", "", key: "create-7b", body: Self.twice).status
                == 409)
        #expect(
            await send(
                endpoint, "PUT", "/7", key: "create-7c", headers: ["If-None-Match": "*"],
                body: Self.twice
            ).status == 412)
        #expect(try await store.fetch(id: 7)?.title == "Once")
    }

    /// A body that is not JSON is `400`; JSON that is not the entity `422` naming the field; an
    /// ID that differs from the path's `422`; nothing is written.
    @Test func badRequestsAreRefusedWithAReason() async throws {
        let store = InMemoryRepository<Todo>()
        let endpoint = SyncEndpoint(store: store)
        let garbage = await send(endpoint, "PUT", "/1", body: "{not json")
        #expect(garbage.status == 400)
        let missing = await send(endpoint, "PUT", "/1", body: #"{"id":1}"#)
        #expect(missing.status == 422 && String(decoding: missing.body, as: UTF8.self).contains("title"))
        let wrongType = await send(endpoint, "PUT", "/1", body: #"{"id":1,"title":5}"#)
        #expect(wrongType.status == 422 && String(decoding: wrongType.body, as: UTF8.self).contains("title"))
        let elsewhere = await send(endpoint, "PUT", "/2", body: #"{"id":1,"title":"a"}"#)
        #expect(elsewhere.status == 422)
        #expect(await send(endpoint, "GET", "/abc").status == 404, "not an Int ID")
        #expect(await send(endpoint, "PATCH", "/1").status == 405)
        #expect(await send(endpoint, "GET", "/1/2").status == 404)
        #expect(await send(endpoint, "GET", "/changes", headers: [:]).status == 200)
        let badLimit = await endpoint.respond(
            to: SyncRequest(method: "GET", path: "/changes", query: [URLQueryItem(name: "limit", value: "0")])
        )
        #expect(badLimit.status == 400)
        let foreign = await endpoint.respond(
            to: SyncRequest(
                method: "GET", path: "/changes", query: [URLQueryItem(name: "since", value: "nope")]))
        #expect(foreign.status == 410)
        #expect(try await store.count() == 0)
    }

    /// A framework's target, taken apart below the collection's path.
    @Test func aTargetIsReadBelowTheCollection() throws {
        let request = try #require(
            SyncRequest(method: "GET", target: "/api/todos/changes?since=a%20b&limit=5", below: "/api/todos/")
        )
        #expect(request.path == "/changes")
        #expect(request.queryItem("since") == "a b" && request.queryItem("limit") == "5")
        #expect(SyncRequest(method: "GET", target: "/api/todos", below: "/api/todos")?.path == "")
        #expect(SyncRequest(method: "GET", target: "/api/todosx/1", below: "/api/todos") == nil)
    }

    /// Two devices, each a `FileRepository` and its outbox, offline-first over one endpoint:
    /// their changes cross through the feed, and both end where the server is.
    @Test func twoDevicesConvergeThroughTheEndpoint() async throws {
        let endpoint = SyncEndpoint(store: InMemoryRepository<Todo>())
        let directory = try TemporaryDirectory()
        func device(_ name: String) async throws -> OfflineFirstRepository<
            HTTPRepository<Todo>, FileRepository<Todo>
        > {
            Self.client(endpoint).offlineFirst(
                local: try await FileRepository<Todo>(fileURL: directory.file("\(name).store")),
                outbox: try await Outbox<Todo>(fileURL: directory.file("\(name).outbox")), automaticSync: nil)
        }
        let phone = try await device("phone")
        let tablet = try await device("tablet")
        try await phone.save(contentsOf: Todo.numbered(20))
        _ = try await phone.sync()
        let first = try await tablet.sync()
        #expect(first.received == 20)
        try await tablet.save(Todo(id: 3, title: "Edited on the tablet"))
        try await tablet.delete(id: 4)
        try await phone.save(Todo(id: 21, title: "New on the phone"))
        _ = try await tablet.sync()
        let phoneSync = try await phone.sync()
        #expect(phoneSync.pullWasIncremental && phoneSync.received == 2, "\(phoneSync)")
        _ = try await tablet.sync()
        let server = try await endpoint.store.fetchAll().sorted { $0.id < $1.id }
        #expect(try await phone.fetchAll().sorted { $0.id < $1.id } == server)
        #expect(try await tablet.fetchAll().sorted { $0.id < $1.id } == server)
        #expect(server.count == 20)
    }
}
