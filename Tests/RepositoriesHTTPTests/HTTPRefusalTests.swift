import Foundation
import Repositories
import RepositoriesHTTP
import Testing

/// A refusal keeps what a screen needs to show it: the status, the body (its start, for a
/// huge one) and the field errors, keyed by the entity's Swift property names, on every
/// path a write takes.
@Suite struct HTTPRefusalTests {
    static let problem = """
        {"type": "about:blank", "title": "Unprocessable Content", "status": 422,
         "errors": {"title": ["must not be empty"]}}
        """

    static let refused = FixtureServer.Scripted.status(
        422, headers: ["Content-Type": "application/problem+json"], body: problem)

    /// Every write path of `HTTPRepository`, by name.
    static let writes: [String: @Sendable (HTTPRepository<Todo>) async throws -> Void] = [
        "save": { try await $0.save(.bread) },
        "save(contentsOf:)": { try await $0.save(contentsOf: [.bread, .eggs]) },
        "create": { _ = try await $0.create(.bread) },
        "create(contentsOf:)": { _ = try await $0.create(contentsOf: [.bread, .eggs]) },
        "delete": { try await $0.delete(id: 1) },
        "save(_:ifMatch:)": { try await $0.save(.milk, ifMatch: "\"v1\"") },
        "saveIfAbsent(_:)": { try await $0.saveIfAbsent(.bread) },
    ]

    @Test(arguments: writes.keys.sorted())
    func everyWritePathKeepsTheStatusTheBodyAndTheFieldErrors(_ write: String) async throws {
        try await withFixtureServer { server in
            let url = server.newCollection()
            try await HTTPRepository<Todo>(baseURL: url).save(.milk)
            let todos = HTTPRepository<Todo>(baseURL: url)
            try await server.script(url, [Self.refused])
            let error = await #expect(throws: RepositoryError.self, "\(write)") {
                try await Self.writes[write]?(todos)
            }
            #expect(error?.code == .rejected)
            #expect(error?.httpStatus == 422)
            #expect(error?.responseBody == Data(Self.problem.utf8))
            #expect(error?.fieldErrors == ["title": ["must not be empty"]])
        }
    }

    @Test func fieldNamesAreTheEntitysPropertyNames() async throws {
        try await withFixtureServer { server in
            let url = server.newCollection()
            var configuration = HTTPRepository<Reminder>.Configuration()
            configuration.coding = configuration.coding.convertingKeysToSnakeCase()
            let reminders = HTTPRepository<Reminder>(baseURL: url, configuration: configuration)
            try await server.script(
                url,
                [
                    .status(
                        400,
                        body:
                            #"{"list_name": ["This field may not be blank."], "due_date": ["Datetime has wrong format."]}"#
                    )
                ])
            let error = await #expect(throws: RepositoryError.self) {
                try await reminders.save(Reminder(id: UUID(), listName: "", dueDate: Date()))
            }
            #expect(
                error?.fieldErrors == [
                    "listName": ["This field may not be blank."], "dueDate": ["Datetime has wrong format."],
                ])
        }
    }

    @Test func theDescriptionNamesTheStatusAndTheFieldErrors() async throws {
        try await withFixtureServer { server in
            let url = server.newCollection()
            let todos = HTTPRepository<Todo>(baseURL: url)
            try await server.script(url, [Self.refused])
            let error = await #expect(throws: RepositoryError.self) { try await todos.save(.milk) }
            let description = try #require(error?.description)
            #expect(description.contains("422"), "\(description)")
            #expect(description.contains("title: must not be empty"), "\(description)")
        }
    }

    @Test func aBodyOfAnUnknownShapeIsKeptWithNoFieldErrors() async throws {
        try await withFixtureServer { server in
            let url = server.newCollection()
            let todos = HTTPRepository<Todo>(baseURL: url)
            let page = "<!doctype html><html><body><h1>Bad Request (400)</h1></body></html>"
            try await server.script(url, [.status(400, headers: ["Content-Type": "text/html"], body: page)])
            let error = await #expect(throws: RepositoryError.self) { try await todos.save(.milk) }
            #expect(error?.code == .rejected)
            #expect(error?.httpStatus == 400)
            #expect(error?.responseBody == Data(page.utf8))
            #expect(error?.fieldErrors == [:])
        }
    }

    @Test func aHugeErrorPageIsKeptOnlyInPart() async throws {
        try await withFixtureServer { server in
            let url = server.newCollection()
            let todos = HTTPRepository<Todo>(baseURL: url)
            let page = String(repeating: "<p>stack frame</p>\n", count: 20_000)
            try await server.script(url, [.status(500, body: page)])
            let error = await #expect(throws: RepositoryError.self) { _ = try await todos.fetchAll() }
            #expect(error?.code == .unavailable)
            #expect(error?.httpStatus == 500)
            #expect(error?.responseBody == Data(page.utf8.prefix(65_536)))
            #expect(error?.fieldErrors == [:])
        }
    }

    @Test func anErrorNoServerAnsweredHasNoStatus() async throws {
        let todos = HTTPRepository<Todo>(baseURL: URL(string: "http://127.0.0.1:9/todos")!)
        let error = await #expect(throws: RepositoryError.self) { _ = try await todos.fetchAll() }
        #expect(error?.code == .unavailable)
        #expect(error?.httpStatus == nil)
        #expect(error?.responseBody == nil)
    }
}
