import Foundation
import Repositories
import RepositoriesHTTP
import Testing

/// `HTTPRepository` reports what a write's answer says the server stored to the task's
/// `WriteEcho`, so an offline-first sync bases the next change on it; an answer that holds
/// no entity reports nothing, and the write still succeeds.
@Suite struct HTTPWriteEchoTests {
    static let url = URL(string: "https://api.example.com/todos")

    @Test func aSavesAnswerIsReportedAsWhatTheServerStored() async throws {
        let transport = RecordingTransport { _ in (200, [:], #"{"id":5,"title":"buy milk","done":false}"#) }
        let todos = HTTPRepository<Todo>(baseURL: try #require(Self.url), transport: transport)
        let echo = WriteEcho()
        try await WriteEcho.$listener.withValue(echo) { try await todos.save(Todo(id: 5, title: "Buy milk")) }
        #expect(echo.stored(Todo.self) == [5: Todo(id: 5, title: "buy milk")])
    }

    @Test func thePutThenPostPresetReportsTheCreatesAnswer() async throws {
        let transport = RecordingTransport { request in
            switch request.method {
            case "PUT": (404, [:], #"{"detail":"Not Found"}"#)
            default: (201, [:], #"{"id":5,"title":"buy milk","done":false}"#)
            }
        }
        let todos = HTTPRepository<Todo>(
            baseURL: try #require(Self.url), configuration: .fastAPI(), transport: transport)
        let echo = WriteEcho()
        try await WriteEcho.$listener.withValue(echo) { try await todos.save(Todo(id: 5, title: "Buy milk")) }
        #expect(echo.stored(Todo.self) == [5: Todo(id: 5, title: "buy milk")])
    }

    @Test(arguments: ["", #"{"ok": true}"#, #"{"id":6,"title":"another","done":false}"#])
    func anAnswerWithoutTheEntityReportsNothing(_ body: String) async throws {
        let transport = RecordingTransport { _ in (200, [:], body) }
        let todos = HTTPRepository<Todo>(baseURL: try #require(Self.url), transport: transport)
        let echo = WriteEcho()
        try await WriteEcho.$listener.withValue(echo) { try await todos.save(Todo(id: 5, title: "Buy milk")) }
        #expect(echo.stored(Todo.self).isEmpty)
    }
}
