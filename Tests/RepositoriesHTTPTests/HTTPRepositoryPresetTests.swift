import Foundation
import Repositories
import RepositoriesHTTP
import RepositoriesTesting
import Testing

/// The presets for back-ends the tests cannot run as they are: PostgREST (Supabase) against
/// the fixture server's PostgREST mode, which follows its documented conventions; Rails and
/// json-server by the exact requests they send. FastAPI and Django REST Framework run for
/// real in `RealFrameworkTests`.
@Suite struct HTTPRepositoryPresetTests {
    func postgREST(_ server: FixtureServer, table: String = "notes-\(UUID().uuidString.lowercased())") -> URL
    {
        server.root.appending(path: "rest/v1/\(table)")
    }

    @Test func postgRESTConformsIncludingAtomicBatches() async throws {
        try await withFixtureServer { server in
            var options = ConformanceOptions<HTTPRepository<ConformanceEntity>>()
            options.reopen = { HTTPRepository(baseURL: $0.baseURL, configuration: $0.configuration) }
            options.makeUnencodableEntity = { ConformanceEntity.unencodable(index: $0) }
            let report = try await RepositoryConformance(
                options: options,
                makeRepository: {
                    HTTPRepository<ConformanceEntity>(
                        // One page per read: pages read while other tasks write can miss a row.
                        baseURL: postgREST(server), configuration: .postgREST(apiKey: "anon-key"))
                },
                makeEntity: ConformanceEntity.make
            ).run()
            #expect(
                report.violations.isEmpty && report.skipped.allSatisfy { $0.law.area == .migrations },
                "\(report)")
            #expect(!report.notes.contains { $0.hasPrefix("concurrency:") }, "\(report)")
        }
    }

    @Test func postgRESTSpeaksItsConventions() async throws {
        try await withFixtureServer { server in
            let url = postgREST(server)
            let todos = HTTPRepository<Todo>(baseURL: url, configuration: .postgREST(apiKey: "anon-key"))
            try await todos.save(.milk)
            try await todos.save(contentsOf: [.bread, .eggs])
            #expect(try await todos.fetch(id: 2) == .bread)
            #expect(try await todos.fetch(id: 9) == nil, "an empty array is no entity")
            #expect(try await todos.count() == 3)
            try await todos.delete(ids: [1, 2])
            try await todos.delete(id: 3)
            let log = try await server.log(url)
            let path = url.path
            #expect(
                log.map(\.line) == [
                    "POST \(path)", "POST \(path)", "GET \(path)?id=eq.2", "GET \(path)?id=eq.9",
                    "GET \(path)?select=id&limit=1", "DELETE \(path)?id=in.(1,2)", "DELETE \(path)?id=eq.3",
                ])
            #expect(log[0].header("Prefer") == "resolution=merge-duplicates,return=minimal")
            #expect(log[4].header("Prefer") == "count=exact")
            #expect(
                log.allSatisfy {
                    $0.header("apikey") == "anon-key" && $0.header("Authorization") == "Bearer anon-key"
                })
        }
    }

    @Test func postgRESTTablesAreReadInPagesByOffset() async throws {
        try await withFixtureServer { server in
            let url = postgREST(server)
            let todos = HTTPRepository<Todo>(
                baseURL: url, configuration: .postgREST(apiKey: "k", pageSize: 2))
            try await todos.save(contentsOf: Todo.numbered(5))
            #expect(try await todos.fetchAll() == Todo.numbered(5))
            #expect(
                try await server.log(url).filter { $0.method == "GET" }.map(\.path) == [
                    "\(url.path)?offset=0&limit=2", "\(url.path)?offset=2&limit=2",
                    "\(url.path)?offset=4&limit=2",
                ])
        }
    }

    @Test func postgRESTCreatesReturnTheRowsTheDatabaseStored() async throws {
        try await withFixtureServer { server in
            let url = postgREST(server)
            let todos = HTTPRepository<Todo>(baseURL: url, configuration: .postgREST(apiKey: "anon-key"))
            let first = try await todos.create(Todo(id: 0, title: "a"))
            let batch = try await todos.create(contentsOf: [Todo(id: 0, title: "b"), Todo(id: 0, title: "c")])
            #expect(first.id > 0)
            #expect(
                batch.map(\.title) == ["b", "c"] && Set(batch.map(\.id)).count == 2
                    && !batch.contains { $0.id == 0 })
            #expect(
                try await server.log(url).map(\.line) == ["POST \(url.path)", "POST \(url.path)"],
                "one bulk insert")
        }
    }

    @Test func postgRESTFiltersQuoteIDsThatHoldItsSyntax() async throws {
        try await withFixtureServer { server in
            let url = postgREST(server)
            let labels = HTTPRepository<Label>(baseURL: url, configuration: .postgREST(apiKey: "anon-key"))
            let awkward = [
                Label(id: "a,b", color: "red"), Label(id: "x.(y)", color: "green"),
                Label(id: #"say "hi""#, color: "blue"),
                Label(id: "plain", color: "gray"),
            ]
            try await labels.save(contentsOf: awkward)
            #expect(try await labels.fetch(id: "a,b")?.color == "red")
            try await labels.delete(ids: awkward.prefix(3).map(\.id))
            #expect(try await labels.fetchAll().map(\.id) == ["plain"])
        }
    }

    @Test func postgRESTWithoutTheKeyIsRejected() async throws {
        try await withFixtureServer { server in
            let todos = HTTPRepository<Todo>(baseURL: postgREST(server), configuration: .postgREST())
            let error = await #expect(throws: RepositoryError.self) { _ = try await todos.fetchAll() }
            #expect(error?.code == .rejected)
            #expect(error?.reason.contains("No API key found in request") == true)
        }
    }

    @Test func railsWrapsInTheRootKeyAndCreatesWithPostAfterA404() async throws {
        let transport = RecordingTransport { request in
            switch (request.method, request.url.path) {
            case ("PUT", "/notes/5"): (404, [:], "")
            case ("POST", "/notes"): (201, [:], #"{"note":{"id":5,"title":"Buy milk","done":false}}"#)
            case ("GET", "/notes/5"): (200, [:], #"{"note":{"id":5,"title":"Buy milk","done":false}}"#)
            default: (422, ["Content-Type": "application/json"], #"{"errors":{"title":["can't be blank"]}}"#)
            }
        }
        let url = try #require(URL(string: "https://app.example.com/notes"))
        let notes = HTTPRepository<Todo>(
            baseURL: url, configuration: .rails(rootKey: "note"), transport: transport)
        try await notes.save(Todo(id: 5, title: "Buy milk"))
        #expect(try await notes.fetch(id: 5)?.title == "Buy milk")
        let error = await #expect(throws: RepositoryError.self) {
            try await notes.save(Todo(id: 6, title: ""))
        }
        #expect(error?.code == .rejected)
        #expect(error?.reason.contains("422 Unprocessable Content") == true)
        #expect(
            error?.reason.contains(#"{"errors":{"title":["can't be blank"]}}"#) == true,
            "\(String(describing: error))")
        #expect(transport.requests.prefix(3).map(\.line) == ["PUT /notes/5", "POST /notes", "GET /notes/5"])
        #expect(transport.requests[1].body.hasPrefix(#"{"note":{"#), "\(transport.requests[1].body)")
    }

    @Test func jsonServerCreatesWithoutThePlaceholderAndCountsFromItsHeader() async throws {
        let transport = RecordingTransport { request in
            switch request.method {
            case "POST": (201, [:], #"{"title":"Buy milk","done":false,"id":12}"#)
            default: (200, ["X-Total-Count": "12"], "[]")
            }
        }
        let url = try #require(URL(string: "http://localhost:3000/todos"))
        let todos = HTTPRepository<Todo>(baseURL: url, configuration: .jsonServer(), transport: transport)
        #expect(try await todos.create(Todo(id: 0, title: "Buy milk")).id == 12)
        #expect(try await todos.count() == 12)
        _ = try await todos.fetchAll()
        #expect(!transport.requests[0].body.contains(#""id""#), "\(transport.requests[0].body)")
        #expect(
            transport.requests.map(\.line) == [
                "POST /todos", "GET /todos?_limit=1", "GET /todos?_page=1&_limit=1000",
            ])
    }
}
