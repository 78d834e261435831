import Foundation
import Repositories
import RepositoriesHTTP
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What real back-ends do differently from the plain-REST defaults: trailing slashes and
/// redirects, lists wrapped apart from items, counts in the usual places, ISO 8601 dates,
/// Unicode IDs, and errors that read as one sentence.
@Suite struct HTTPRepositoryConventionTests {
    @Test func trailingSlashIsAddedToTheCollectionAndEveryItem() async throws {
        try await withFixtureServer { server in
            let url = server.newCollection("slashed")
            let todos = HTTPRepository<Todo>(baseURL: url) { $0.trailingSlash = true }
            try await todos.save(.milk)
            #expect(try await todos.fetch(id: 1) == .milk)
            #expect(try await todos.fetchAll() == [.milk])
            try await todos.delete(id: 1)
            #expect(
                try await server.log(url).map(\.line) == [
                    "PUT \(url.path)/1/", "GET \(url.path)/1/", "GET \(url.path)/", "DELETE \(url.path)/1/",
                ])
        }
    }

    @Test func redirectIsRejectedWithASentenceThatNamesTheFix() async throws {
        try await withFixtureServer { server in
            let url = server.newCollection("slashed")
            let todos = HTTPRepository<Todo>(baseURL: url)
            let error = await #expect(throws: RepositoryError.self) { try await todos.save(.milk) }
            #expect(
                error?.code == .rejected, "a setup mistake: retry and fallback must not treat it as an outage"
            )
            let description = try #require(error?.description)
            #expect(description.contains("301 Moved Permanently, a redirect to"), "\(description)")
            #expect(description.contains("set configuration.trailingSlash = true"), "\(description)")
        }
    }

    @Test func redirectLoopOfAClientThatFollowsIsRejected() async throws {
        struct Looping: HTTPTransport {
            func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
                throw URLError(.httpTooManyRedirects)
            }
        }
        let url = try #require(URL(string: "https://api.example.com/notes"))
        let todos = HTTPRepository<Todo>(baseURL: url, transport: Looping())
        let error = await #expect(throws: RepositoryError.self) { _ = try await todos.fetchAll() }
        #expect(error?.code == .rejected)
        let description = try #require(error?.description)
        #expect(description.contains("configuration.trailingSlash = true"), "\(description)")
        #expect(!description.contains("UserInfo"), "\(description)")
    }

    @Test func refusedConnectionReadsAsOneSentenceNamingTheHost() async throws {
        let server = try await FixtureServer.start()
        let url = server.newCollection()
        await server.stop()
        let error = await #expect(throws: RepositoryError.self) {
            try await HTTPRepository<Todo>(baseURL: url).fetchAll()
        }
        let description = try #require(error?.description)
        #expect(description.contains("127.0.0.1:\(server.port) refused the connection"), "\(description)")
        #expect(description.contains("is running"), "\(description)")
        #expect(!description.contains("Error Domain") && !description.contains("UserInfo"), "\(description)")
        #expect((error?.underlying as? HTTPTransportFailure)?.code == .cannotConnectToHost)
    }

    @Test func listsAreUnwrappedAndItemsAreNot() async throws {
        try await withFixtureServer { server in
            let url = server.newCollection()
            try await HTTPRepository<Todo>(baseURL: url).save(contentsOf: Todo.numbered(5))
            let todos = HTTPRepository<Todo>(baseURL: url) { configuration in
                configuration.coding = configuration.coding.unwrappingLists("results", nextPageKey: "next")
                configuration.endpoints.fetchAll = { resource in
                    .get(resource.collection).adding(query: [
                        URLQueryItem(name: "envelope", value: "results"),
                        URLQueryItem(name: "per_page", value: "2"),
                    ])
                }
            }
            #expect(try await todos.fetchAll() == Todo.numbered(5))
            #expect(
                try await todos.fetch(id: 3) == Todo.numbered(5)[2], "the same repository reads a plain item")
        }
    }

    @Test func countIsReadFromTheUsualPlaces() throws {
        let coding = HTTPRepository<Todo>.Coding()
        let url = try #require(URL(string: "https://api.example.com/notes"))
        func count(_ headers: [String: String], _ body: String) throws -> Int {
            try coding.decodeCount(
                HTTPReply(method: "GET", url: url, status: 200, headers: headers, body: Data(body.utf8)),
                coding.makeDecoder())
        }
        #expect(try count(["X-Total-Count": "12"], "[]") == 12)
        #expect(try count(["Content-Range": "0-24/3573"], "[]") == 3_573)
        #expect(try count(["Content-Range": "*/0"], "[]") == 0)
        #expect(try count([:], #"{"count": 42, "next": null, "results": []}"#) == 42)
        #expect(try count([:], #"{"total": 7, "items": []}"#) == 7)
        #expect(try count([:], "[1, 2, 3]") == 3)
        #expect(throws: DecodingError.self) { try count([:], #"{"results": []}"#) }
    }

    @Test func datesAreISO8601ByDefault() async throws {
        try await withFixtureServer { server in
            let url = server.newCollection()
            let reminders = HTTPRepository<Reminder>(baseURL: url)
            let reminder = Reminder(
                id: UUID(), listName: "home", dueDate: Date(timeIntervalSince1970: 1_700_000_000.25))
            try await reminders.save(reminder)
            let stored = String(
                decoding: try await server.raw(reminders.resource.item(reminder.id)), as: UTF8.self)
            #expect(stored.contains(#""dueDate":"2023-11-14T22:13:20.25Z""#), "\(stored)")
            #expect(try await reminders.fetch(id: reminder.id) == reminder)
        }
    }

    @Test func datesAreReadWithFractionsAndOffsetsAsDjangoAndRailsWriteThem() throws {
        let decoder = HTTPRepository<Reminder>.Coding.iso8601Decoder()
        func date(_ text: String) throws -> Date {
            try decoder.decode([Date].self, from: Data("[\"\(text)\"]".utf8))[0]
        }
        let instant = Date(timeIntervalSince1970: 1_714_555_800)  // 2024-05-01T09:30:00Z
        #expect(try date("2024-05-01T09:30:00Z") == instant)
        #expect(try date("2024-05-01T11:30:00+02:00") == instant)
        #expect(try date("2024-05-01T04:30:00-0500") == instant)
        #expect(try date("2024-05-01T09:30:00") == instant, "no zone: UTC")
        #expect(abs(try date("2024-05-01T09:30:00.123456Z").timeIntervalSince(instant) - 0.123456) < 1e-6)
        #expect(try date("2024-05-01 09:30:00.5+00:00").timeIntervalSince(instant) == 0.5)
        #expect(try date("2024-05-01") == Date(timeIntervalSince1970: 1_714_521_600))
        #expect(throws: DecodingError.self) { try date("May 1st") }
        #expect(throws: DecodingError.self) { try date("2024-13-01T00:00:00Z") }
    }

    @Test func snakeCaseKeysAreOneOption() async throws {
        try await withFixtureServer { server in
            let url = server.newCollection()
            let reminders = HTTPRepository<Reminder>(baseURL: url) {
                $0.coding = $0.coding.convertingKeysToSnakeCase()
            }
            let reminder = Reminder(
                id: UUID(), listName: "work", dueDate: Date(timeIntervalSince1970: 1_700_000_000))
            try await reminders.save(reminder)
            let stored = String(
                decoding: try await server.raw(reminders.resource.item(reminder.id)), as: UTF8.self)
            #expect(stored.contains(#""list_name":"work""#), "\(stored)")
            #expect(stored.contains(#""due_date":"2023-11-14T22:13:20Z""#), "\(stored)")
            #expect(try await reminders.fetch(id: reminder.id) == reminder)
        }
    }

    @Test func idsSwiftHoldsEqualAddressOneResource() async throws {
        try await withFixtureServer { server in
            let url = server.newCollection()
            let labels = HTTPRepository<Label>(baseURL: url)
            try await labels.save(Label(id: "caf\u{E9}", color: "red"))
            #expect(try await labels.fetch(id: "cafe\u{301}")?.color == "red")
            try await labels.save(Label(id: "cafe\u{301}", color: "blue"))
            #expect(try await labels.fetchAll().map(\.color) == ["blue"])
            try await labels.delete(id: "cafe\u{301}")
            #expect(try await labels.fetchAll().isEmpty)
        }
    }
}
