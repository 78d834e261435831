import Foundation
import Repositories
import RepositoriesHTTP
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The transport under the repository: cancellation reaches a read on the wire and waits for a
/// write's answer, and another client can take URLSession's place.
@Suite struct HTTPTransportTests {
    @Test func cancellingTheTaskCancelsTheRequest() async throws {
        try await withFixtureServer { server in
            let url = server.newCollection()
            let todos = HTTPRepository<Todo>(baseURL: url)
            try await todos.save(.milk)
            // The body would come after 30 s; the server notices the hang-up at once, so the
            // delay costs nothing when the cancel works and leaves room on a loaded machine.
            try await server.script(url, [.slow(delay: 30)])
            let task = Task { try await todos.fetchAll() }
            try await server.wait(for: url, requests: 2)  // the slow GET has reached the server
            task.cancel()
            let outcome = await task.result
            #expect(throws: CancellationError.self) { try outcome.get() }
            // …and the server saw the client hang up before the body: had the request gone on,
            // the client would have read the body and the server would count no abort. (No
            // clock here: on a loaded machine any time limit is a flaky test.)
            try await server.wait(for: url, aborted: 1)
        }
    }

    /// A write on the wire is not abandoned: the server may apply it whatever the client does,
    /// so the call waits for the answer and reports it rather than `CancellationError`.
    @Test func cancellingAWriteOnTheWireWaitsForItsAnswer() async throws {
        try await withFixtureServer { server in
            let url = server.newCollection()
            let todos = HTTPRepository<Todo>(baseURL: url)
            // The answer's body comes after 1 s, unless the client hangs up first.
            try await server.script(url, [.slow(delay: 1)])
            let task = Task { try await todos.save(.milk) }
            try await server.wait(for: url, requests: 1)  // the PUT has reached the server
            task.cancel()
            let outcome = await task.result
            if case .failure(let error) = outcome {
                #expect(!(error is CancellationError), "the write was abandoned on the wire: \(error)")
            }
            #expect(try await server.log(url).map(\.line) == ["PUT \(url.path)/1"])
        }
    }

    /// A client of the test's own: it answers from memory and records what it was asked.
    final class StubTransport: HTTPTransport {
        let requests = Mutex<[String]>([])

        func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
            let url = try #require(request.url)
            requests.withLock { $0.append("\(request.httpMethod ?? "?") \(url.path)") }
            let body =
                request.httpMethod == "GET"
                ? Data(#"[{"id": 7, "title": "From the stub", "done": false}]"#.utf8) : Data()
            let response = try #require(
                HTTPURLResponse(
                    url: url, statusCode: request.httpMethod == "GET" ? 200 : 204, httpVersion: "HTTP/1.1",
                    headerFields: ["Content-Type": "application/json"]))
            return (body, response)
        }
    }

    @Test func anotherTransportCanTakeURLSessionsPlace() async throws {
        let stub = StubTransport()
        let url = try #require(URL(string: "https://api.example.com/todos"))
        let todos = HTTPRepository<Todo>(baseURL: url, transport: stub)
        #expect(try await todos.fetchAll() == [Todo(id: 7, title: "From the stub")])
        try await todos.save(.milk)
        #expect(stub.requests.withLock { $0 } == ["GET /todos", "PUT /todos/1"])
    }

    @Test func transportErrorsOfEveryKindBecomeRepositoryErrors() async throws {
        struct Broken: HTTPTransport {
            let error: any Error
            func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) { throw error }
        }
        struct Odd: Error {}
        let url = try #require(URL(string: "https://api.example.com/todos"))
        let cases: [(any Error, RepositoryError.Code)] = [
            (URLError(.timedOut), .timedOut),
            (URLError(.cannotConnectToHost), .unavailable),
            (URLError(.networkConnectionLost), .unavailable),
            (Odd(), .unavailable),
            (RepositoryError.rejected("the proxy said no"), .rejected),
        ]
        for (thrown, code) in cases {
            let todos = HTTPRepository<Todo>(baseURL: url, transport: Broken(error: thrown))
            let error = await #expect(throws: RepositoryError.self) { try await todos.fetch(id: 1) }
            #expect(error?.code == code, "\(thrown)")
            #expect(error?.location == url.absoluteString + "/1", "\(thrown)")
        }
    }
}
