import Foundation
import Repositories
import RepositoriesHTTP
import Synchronization
import Testing

/// Entities without their final ID: a batch of them is never collapsed, `create` returns what
/// the server stored, and servers whose `PUT` only replaces still take client-chosen IDs.
@Suite struct HTTPRepositoryCreateTests {
    /// A server that assigns IDs on `POST /notes`, answers `404` to a `PUT` of an unknown ID,
    /// and takes a bulk `POST /notes/bulk`.
    static func creatingServer() -> RecordingTransport {
        let state = ServerState()
        return RecordingTransport { request in state.answer(request) }
    }

    final class ServerState: Sendable {
        private let notes = Mutex<[Int: String]>([:])

        func answer(_ request: RecordingTransport.Sent) -> RecordingTransport.Answer {
            let json = ["Content-Type": "application/json"]
            let path = request.url.path
            if request.method == "POST" && path.hasSuffix("/bulk") {
                let titles = Self.titles(in: request.body)
                let stored = titles.map { title in
                    notes.withLock { notes in
                        let id = notes.count + 1
                        notes[id] = title
                        return #"{"id":\#(id),"title":"\#(title)","done":false}"#
                    }
                }
                return (201, json, "[" + stored.joined(separator: ",") + "]")
            }
            if request.method == "POST" {
                guard let title = Self.titles(in: request.body).first, title != "refused" else {
                    return (422, json, #"{"errors":{"title":["is reserved"]}}"#)
                }
                let id = notes.withLock { notes in
                    let id = notes.count + 1
                    notes[id] = title
                    return id
                }
                return (201, json, #"{"id":\#(id),"title":"\#(title)","done":false}"#)
            }
            if request.method == "PUT" {
                let id = Int(request.url.lastPathComponent) ?? -1
                guard notes.withLock({ $0[id] }) != nil else {
                    return (404, json, #"{"detail":"Not found"}"#)
                }
                return (200, json, request.body)
            }
            let all = notes.withLock { $0.sorted { $0.key < $1.key } }
            return (
                200, json,
                "["
                    + all.map { #"{"id":\#($0.key),"title":"\#($0.value)","done":false}"# }.joined(
                        separator: ",") + "]"
            )
        }

        static func titles(in body: String) -> [String] {
            body.components(separatedBy: #""title":""#).dropFirst().compactMap {
                $0.split(separator: "\"").first.map(String.init)
            }
        }
    }

    // swift-format-ignore: NeverForceUnwrap
    let url = URL(string: "https://api.example.com/notes")!

    @Test func batchOfNewEntitiesWithTheDocsRecipeCreatesEveryOne() async throws {
        let transport = Self.creatingServer()
        let todos = HTTPRepository<Todo>(baseURL: url, transport: transport) { configuration in
            configuration.endpoints.save = { todo, resource in
                todo.id == 0 ? .post(resource.collection) : .put(resource.item(todo.id))
            }
        }
        try await todos.save(contentsOf: [Todo(id: 0, title: "a"), Todo(id: 0, title: "b")])
        #expect(try await todos.fetchAll().map(\.title) == ["a", "b"], "no entity is lost")
    }

    @Test func bulkBatchMergesReplacementsButNeverCreates() async throws {
        let transport = RecordingTransport { _ in (204, [:], "") }
        let todos = HTTPRepository<Todo>(baseURL: url, transport: transport) { configuration in
            configuration.endpoints.save = { todo, resource in
                todo.id == 0 ? .post(resource.collection) : .put(resource.item(todo.id))
            }
            configuration.endpoints.saveBatch = { _, resource in .post(resource.appending("bulk")) }
        }
        try await todos.save(contentsOf: [
            Todo(id: 0, title: "a"), Todo(id: 5, title: "old"), Todo(id: 0, title: "b"),
            Todo(id: 5, title: "new"),
        ])
        let body = try #require(transport.requests.first?.body)
        let titles = ServerState.titles(in: body)
        #expect(titles == ["a", "new", "b"], "\(body)")
    }

    @Test func createReturnsWhatTheServerStored() async throws {
        let todos = HTTPRepository<Todo>(baseURL: url, transport: Self.creatingServer()) { configuration in
            configuration.coding = configuration.coding.omittingOnCreate()
        }
        let created = try await todos.create(Todo(id: 0, title: "Buy milk"))
        #expect(created == Todo(id: 1, title: "Buy milk"))
    }

    @Test func createLeavesThePlaceholderIDOutWhenAsked() async throws {
        let transport = Self.creatingServer()
        let todos = HTTPRepository<Todo>(baseURL: url, transport: transport) { configuration in
            configuration.coding = configuration.coding.omittingOnCreate()
        }
        _ = try await todos.create(Todo(id: 0, title: "Buy milk"))
        let sent = try #require(transport.requests.first)
        #expect(sent.line == "POST /notes")
        #expect(!sent.body.contains(#""id""#), "\(sent.body)")
        #expect(sent.headers["Idempotency-Key"] != nil)
    }

    @Test func createBatchUsesTheBulkEndpointWhenThereIsOne() async throws {
        let transport = Self.creatingServer()
        let todos = HTTPRepository<Todo>(baseURL: url, transport: transport) { configuration in
            configuration.endpoints.createBatch = { _, resource in .post(resource.appending("bulk")) }
        }
        let created = try await todos.create(contentsOf: [Todo(id: 0, title: "a"), Todo(id: 0, title: "b")])
        #expect(created.map(\.id) == [1, 2])
        #expect(transport.requests.map(\.line) == ["POST /notes/bulk"])
    }

    @Test func failedCreateBatchSaysWhichWereCreatedAndHoldsThem() async throws {
        let todos = HTTPRepository<Todo>(baseURL: url, transport: Self.creatingServer())
        let drafts = ["a", "b", "refused", "d"].map { Todo(id: 0, title: $0) }
        let error = await #expect(throws: RepositoryError.self) { try await todos.create(contentsOf: drafts) }
        #expect(error?.code == .rejected)
        #expect(error?.reason.contains("stopped at entity 3 of 4") == true, "\(String(describing: error))")
        #expect(
            error?.reason.contains("Created before it: 2 (IDs 1, 2)") == true, "\(String(describing: error))")
        let partial = try #require(error?.underlying as? HTTPRepository<Todo>.CreatedBeforeFailure)
        #expect(partial.created.map(\.id) == [1, 2])
        #expect(partial.failure.code == .rejected)
    }

    @Test func createWithoutABodyIsReadFromItsLocation() async throws {
        let transport = RecordingTransport { request in
            request.method == "POST"
                ? (201, ["Location": "/notes/9"], "")
                : (200, ["Content-Type": "application/json"], #"{"id":9,"title":"Buy milk","done":false}"#)
        }
        let todos = HTTPRepository<Todo>(baseURL: url, transport: transport)
        #expect(try await todos.create(Todo(id: 0, title: "Buy milk")).id == 9)
        #expect(transport.requests.map(\.line) == ["POST /notes", "GET /notes/9"])
    }

    @Test func replaceOnlyServersTakeClientChosenIDsWithOneLine() async throws {
        let transport = Self.creatingServer()
        let todos = HTTPRepository<Todo>(baseURL: url, transport: transport) {
            $0.saveStrategy = .putThenPostOnNotFound
        }
        try await todos.save(Todo(id: 1, title: "a"))
        try await todos.save(Todo(id: 1, title: "b"))
        #expect(transport.requests.map(\.line) == ["PUT /notes/1", "POST /notes", "PUT /notes/1"])
        let keys = transport.requests.map { $0.headers["Idempotency-Key"] ?? "" }
        #expect(keys[1] == keys[0] + "-create", "the second request of one write has a key of its own")
    }

    @Test func postThenPutOnConflict() async throws {
        let transport = RecordingTransport { request in
            request.method == "POST" ? (409, [:], "exists") : (200, [:], "")
        }
        let todos = HTTPRepository<Todo>(baseURL: url, transport: transport) {
            $0.saveStrategy = .postThenPutOnConflict
        }
        try await todos.save(.milk)
        #expect(transport.requests.map(\.line) == ["POST /notes", "PUT /notes/1"])
    }
}
