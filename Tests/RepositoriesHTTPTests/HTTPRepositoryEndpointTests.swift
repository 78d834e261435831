import Foundation
import Repositories
import RepositoriesHTTP
import Synchronization
import Testing

/// The default REST conventions, and each way of adapting them to an API that differs.
@Suite struct HTTPRepositoryEndpointTests {
    @Test func defaultsAreRESTVerbsOnTheCollectionAndItsItems() async throws {
        try await withFixtureServer { server in
            let url = server.newCollection()
            let path = url.path
            let todos = HTTPRepository<Todo>(baseURL: url)
            try await todos.save(.milk)
            #expect(try await todos.fetch(id: 1) == .milk)
            #expect(try await todos.fetchAll() == [.milk])
            try await todos.delete(id: 1)
            #expect(try await todos.fetch(id: 1) == nil)

            let log = try await server.log(url)
            #expect(
                log.map(\.line) == [
                    "PUT \(path)/1", "GET \(path)/1", "GET \(path)", "DELETE \(path)/1", "GET \(path)/1",
                ])
            #expect(log[0].header("Content-Type") == "application/json")
            #expect(log.allSatisfy { $0.header("Accept") == "application/json" })
        }
    }

    @Test func idsOfEveryKindBecomeOneEscapedPathSegment() async throws {
        try await withFixtureServer { server in
            let labelsURL = server.newCollection()
            let labels = HTTPRepository<Label>(baseURL: labelsURL)
            let awkward = Label(id: "to do/später?#1 50%", color: "red")
            try await labels.save(awkward)
            #expect(try await labels.fetch(id: awkward.id) == awkward)
            #expect(try await labels.fetchAll() == [awkward])
            #expect(
                try await server.log(labelsURL).first?.path
                    == labelsURL.path + "/to%20do%2Fsp%C3%A4ter%3F%231%2050%25")

            let remindersURL = server.newCollection()
            let reminders = HTTPRepository<Reminder>(baseURL: remindersURL)
            let reminder = Reminder(
                id: UUID(), listName: "home", dueDate: Date(timeIntervalSince1970: 1_700_000_000))
            try await reminders.save(reminder)
            #expect(try await reminders.fetch(id: reminder.id) == reminder)
            #expect(
                try await server.log(remindersURL).first?.path == remindersURL.path + "/"
                    + reminder.id.uuidString)
        }
    }

    @Test func dotSegmentsAndQueriesNeverChangeWhichURLAnItemHas() throws {
        let base = try #require(URL(string: "https://api.example.com/v1/labels/?key=abc"))
        let resource = HTTPRepository<Label>(baseURL: base).resource
        #expect(resource.item("..").absoluteString == "https://api.example.com/v1/labels/%2E%2E?key=abc")
        #expect(resource.item("a.b").absoluteString == "https://api.example.com/v1/labels/a.b?key=abc")
        #expect(resource.appending("bulk").absoluteString == "https://api.example.com/v1/labels/bulk?key=abc")
    }

    @Test func customIDPathIsUsed() async throws {
        try await withFixtureServer { server in
            let url = server.newCollection()
            let todos = HTTPRepository<Todo>(baseURL: url) { $0.idPath = { "todo-\($0)" } }
            try await todos.save(.milk)
            #expect(try await todos.fetch(id: 1) == .milk)
            #expect(try await server.log(url).first?.path == url.path + "/todo-1")
        }
    }

    @Test func saveCanPostToTheCollection() async throws {
        try await withFixtureServer { server in
            let url = server.newCollection()
            let todos = HTTPRepository<Todo>(baseURL: url) { configuration in
                configuration.endpoints.save = { _, resource in .post(resource.collection) }
            }
            try await todos.save(.milk)
            try await todos.save(.bread)
            #expect(try await todos.fetchAll() == [.milk, .bread])
            #expect(
                try await server.log(url).prefix(2).map(\.line) == ["POST \(url.path)", "POST \(url.path)"])
        }
    }

    @Test func wrappedAndPagedResponsesAreUnwrappedAndFollowedToTheEnd() async throws {
        try await withFixtureServer { server in
            let url = server.newCollection()
            let plain = HTTPRepository<Todo>(baseURL: url)
            try await plain.save(contentsOf: Todo.numbered(5))

            let wrapped = HTTPRepository<Todo>(baseURL: url) { configuration in
                configuration.coding = configuration.coding.unwrapping("data", nextPageKey: "next")
                configuration.endpoints.fetchAll = { resource in
                    .get(resource.collection).adding(query: [
                        URLQueryItem(name: "envelope", value: "data"),
                        URLQueryItem(name: "per_page", value: "2"),
                    ])
                }
                configuration.endpoints.fetch = { id, resource in
                    .get(resource.item(id)).adding(query: [URLQueryItem(name: "envelope", value: "data")])
                }
            }
            #expect(try await wrapped.fetchAll() == Todo.numbered(5))
            #expect(try await wrapped.fetch(id: 4) == Todo.numbered(5)[3])
            let pages = try await server.log(url).filter { $0.path.contains("per_page") }.map(\.path)
            #expect(pages.count == 3, "\(pages)")
        }
    }

    @Test func linkHeaderPagesAreFollowedToTheEnd() async throws {
        try await withFixtureServer { server in
            let url = server.newCollection()
            let todos = HTTPRepository<Todo>(baseURL: url) { configuration in
                configuration.endpoints.fetchAll = { resource in
                    .get(resource.collection).adding(query: [URLQueryItem(name: "per_page", value: "2")])
                }
            }
            try await todos.save(contentsOf: Todo.numbered(5))
            #expect(try await todos.fetchAll() == Todo.numbered(5))
            #expect(try await todos.count() == 5)
            let pages = try await server.log(url).filter { $0.method == "GET" }.map(\.path)
            #expect(pages.count == 6, "two reads of three pages each: \(pages)")
        }
    }

    @Test func pagesThatLinkBackAreCorrupted() async throws {
        try await withFixtureServer { server in
            let url = server.newCollection()
            let todos = HTTPRepository<Todo>(baseURL: url) { configuration in
                let decode = configuration.coding.decodePage
                configuration.coding.decodePage = { reply, decoder in
                    var page = try decode(reply, decoder)
                    page.next = reply.url
                    return page
                }
            }
            let error = await #expect(throws: RepositoryError.self) { try await todos.fetchAll() }
            #expect(error?.code == .corrupted)
        }
    }

    @Test func bulkEndpointSavesABatchInOneRequest() async throws {
        try await withFixtureServer { server in
            let url = server.newCollection()
            let todos = HTTPRepository<Todo>(baseURL: url) { configuration in
                configuration.endpoints.saveBatch = { _, resource in .post(resource.collection) }
            }
            var renamed = Todo.milk
            renamed.title = "Buy oat milk"
            try await todos.save(contentsOf: [.milk, .bread, renamed])
            #expect(
                try await todos.fetchAll() == [renamed, .bread], "the later wins, in the place of the first")
            #expect(try await server.log(url).map(\.method) == ["POST", "GET"])
        }
    }

    @Test func deleteAllDeletesEachEntityWithoutACollectionEndpoint() async throws {
        try await withFixtureServer { server in
            let url = server.newCollection()
            let todos = HTTPRepository<Todo>(baseURL: url)
            try await todos.save(contentsOf: Todo.numbered(3))
            try await todos.deleteAll()
            #expect(try await todos.fetchAll().isEmpty)
            let deletes = try await server.log(url).filter { $0.method == "DELETE" }.map(\.path)
            #expect(deletes == (1...3).map { "\(url.path)/\($0)" })
        }
    }

    @Test func deleteAllUsesTheCollectionEndpointWhenThereIsOne() async throws {
        try await withFixtureServer { server in
            let url = server.newCollection()
            let todos = HTTPRepository<Todo>(baseURL: url) { configuration in
                configuration.endpoints.deleteAll = { resource in .delete(resource.collection) }
            }
            try await todos.save(contentsOf: Todo.numbered(3))
            try await todos.deleteAll()
            #expect(try await todos.fetchAll().isEmpty)
            #expect(try await server.log(url).filter { $0.method == "DELETE" }.map(\.path) == [url.path])
        }
    }

    @Test func countUsesTheCountEndpointWhenThereIsOne() async throws {
        try await withFixtureServer { server in
            let url = server.newCollection()
            let todos = HTTPRepository<Todo>(baseURL: url) { configuration in
                configuration.endpoints.count = { resource in
                    .get(resource.collection).adding(query: [URLQueryItem(name: "count", value: nil)])
                }
            }
            try await todos.save(contentsOf: Todo.numbered(4))
            #expect(try await todos.count() == 4)
            #expect(try await server.log(url).last?.line == "GET \(url.path)?count")
        }
    }

    @Test func codersFollowTheConfiguredStrategies() async throws {
        try await withFixtureServer { server in
            let url = server.newCollection()
            let reminders = HTTPRepository<Reminder>(baseURL: url) { configuration in
                configuration.coding = .init(
                    makeEncoder: {
                        let encoder = JSONEncoder()
                        encoder.keyEncodingStrategy = .convertToSnakeCase
                        encoder.dateEncodingStrategy = .iso8601
                        return encoder
                    },
                    makeDecoder: {
                        let decoder = JSONDecoder()
                        decoder.keyDecodingStrategy = .convertFromSnakeCase
                        decoder.dateDecodingStrategy = .iso8601
                        return decoder
                    })
            }
            let reminder = Reminder(
                id: UUID(), listName: "work", dueDate: Date(timeIntervalSince1970: 1_700_000_000))
            try await reminders.save(reminder)
            #expect(try await reminders.fetch(id: reminder.id) == reminder)
            let stored = String(
                decoding: try await server.raw(reminders.resource.item(reminder.id)), as: UTF8.self)
            #expect(stored.contains(#""list_name":"work""#), "\(stored)")
            #expect(stored.contains(#""due_date":"2023-11-14T22:13:20Z""#), "\(stored)")
        }
    }

    @Test func headersAndAFreshTokenGoWithEveryRequest() async throws {
        try await withFixtureServer { server in
            let url = server.newCollection()
            let issued = Mutex(0)
            let todos = HTTPRepository<Todo>(baseURL: url) { configuration in
                configuration.headers["X-Client"] = "repositories-tests"
                configuration.tokenProvider = {
                    let number = issued.withLock { count in
                        count += 1
                        return count
                    }
                    return "token-\(number)"
                }
                configuration.prepareRequest = { request in
                    request.setValue(
                        String(request.httpBody?.count ?? 0), forHTTPHeaderField: "X-Body-Length")
                }
            }
            try await todos.save(.milk)
            _ = try await todos.fetchAll()
            _ = try await todos.fetch(id: 1)
            let log = try await server.log(url)
            #expect(
                log.map { $0.header("Authorization") } == [
                    "Bearer token-1", "Bearer token-2", "Bearer token-3",
                ])
            #expect(log.allSatisfy { $0.header("X-Client") == "repositories-tests" })
            #expect(log.first?.header("X-Body-Length") != "0")
        }
    }
}
