import Foundation
import Repositories
import RepositoriesHTTP
import RepositoriesTesting
import Testing

/// Every way a server or the network can fail maps to the `RepositoryError` the type
/// documents, with the URL in `location`.
@Suite struct HTTPRepositoryErrorTests {
    /// Starts a server holding `Todo.milk`, makes the next requests answer `responses`, and
    /// returns what `operation` threw.
    func failure(
        answering responses: [FixtureServer.Scripted], timeout: Duration = .seconds(20),
        sourceLocation: SourceLocation = #_sourceLocation,
        of operation: @escaping @Sendable (HTTPRepository<Todo>) async throws -> Void
    ) async throws -> (error: RepositoryError?, collection: URL) {
        try await withFixtureServer { server in
            let url = server.newCollection()
            // Set up with the default timeout: a loaded machine must not fail the setup.
            try await HTTPRepository<Todo>(baseURL: url).save(.milk)
            let todos = HTTPRepository<Todo>(baseURL: url) { $0.timeout = timeout }
            try await server.script(url, responses)
            let error = await #expect(throws: RepositoryError.self, sourceLocation: sourceLocation) {
                try await operation(todos)
            }
            return (error, url)
        }
    }

    @Test func serverErrorIsUnavailable() async throws {
        let (error, url) = try await failure(answering: [.status(500, body: "database on fire")]) {
            _ = try await $0.fetchAll()
        }
        #expect(error?.code == .unavailable)
        #expect(error?.location == url.absoluteString)
        #expect(error?.retryAfter == nil)
        #expect(error?.reason.contains("500 Internal Server Error") == true)
        #expect(error?.reason.contains("database on fire") == true)
    }

    @Test func serviceUnavailableCarriesRetryAfterInSeconds() async throws {
        let (error, _) = try await failure(answering: [.status(503, headers: ["Retry-After": "7"])]) {
            _ = try await $0.fetch(id: 1)
        }
        #expect(error?.code == .unavailable)
        #expect(error?.retryAfter == .seconds(7))
    }

    @Test func tooManyRequestsCarriesRetryAfterGivenAsAnHTTPDate() async throws {
        let (error, _) = try await failure(
            answering: [.status(429, headers: ["Retry-After": "{http-date+3600}"])]
        ) {
            try await $0.save(.bread)
        }
        #expect(error?.code == .unavailable)
        let retryAfter = try #require(error?.retryAfter)
        // An hour ahead, less the time the answer took to be read: CI saw a loaded machine
        // leave a task waiting more than 20 s for a thread between the two.
        #expect(retryAfter > .seconds(3_000) && retryAfter <= .seconds(3_601), "retry after \(retryAfter)")
    }

    @Test func unauthorizedIsRejected() async throws {
        let (error, _) = try await failure(answering: [.status(401)]) { _ = try await $0.fetchAll() }
        #expect(error?.code == .rejected)
        #expect(error?.reason.contains("401 Unauthorized") == true)
    }

    @Test func forbiddenIsRejected() async throws {
        let (error, _) = try await failure(answering: [.status(403)]) { try await $0.delete(id: 1) }
        #expect(error?.code == .rejected)
        #expect(error?.reason.contains("403 Forbidden") == true)
    }

    @Test func conflictIsConflict() async throws {
        let (error, url) = try await failure(answering: [.status(409, body: "version 3 is newer")]) {
            try await $0.save(.milk)
        }
        #expect(error?.code == .conflict)
        #expect(error?.id == "1")
        #expect(error?.location == url.absoluteString + "/1")
        #expect(error?.reason.contains("version 3 is newer") == true)
    }

    @Test func failedPreconditionIsConflict() async throws {
        let (error, _) = try await failure(answering: [.status(412)]) { try await $0.save(.milk) }
        #expect(error?.code == .conflict)
    }

    @Test func otherClientErrorIsRejectedQuotingTheBody() async throws {
        let (error, _) = try await failure(
            answering: [
                .status(422, body: "title must not be empty\n" + String(repeating: "x", count: 1_000))
            ]
        ) {
            try await $0.save(.milk)
        }
        #expect(error?.code == .rejected)
        let reason = try #require(error?.reason)
        #expect(reason.contains("422 Unprocessable Content; the server said: title must not be empty x"))
        #expect(reason.count < 400, "the excerpt is short: \(reason.count) characters")
    }

    @Test func notFoundOnAnItemIsNilAndOnADeleteIsDone() async throws {
        try await withFixtureServer { server in
            let url = server.newCollection()
            let todos = HTTPRepository<Todo>(baseURL: url)
            try await todos.save(.milk)
            try await server.script(url, [.status(404), .status(404)])
            #expect(try await todos.fetch(id: 1) == nil)
            try await todos.delete(id: 1)
            #expect(try await todos.fetch(id: 1) == .milk, "the scripted 404s are used up")
        }
    }

    @Test func notFoundOnTheCollectionIsRejected() async throws {
        let (error, _) = try await failure(answering: [.status(404)]) { _ = try await $0.fetchAll() }
        #expect(error?.code == .rejected)
    }

    @Test func bodyThatDoesNotDecodeIsDecodingFailedNamingTheURL() async throws {
        let (error, url) = try await failure(answering: [.garbage]) { _ = try await $0.fetch(id: 1) }
        #expect(error?.code == .decodingFailed)
        #expect(error?.location == url.absoluteString + "/1")
        #expect(error?.record == "1")
        let reason = try #require(error?.reason)
        #expect(reason.contains(url.absoluteString + "/1"))
        #expect(reason.contains(#"{"id": 1, "title": <this is not JSON>"#), "an excerpt: \(reason)")
        #expect(error?.underlying is DecodingError)
    }

    @Test func collectionThatDoesNotDecodeIsDecodingFailed() async throws {
        let (error, url) = try await failure(answering: [.garbage]) { _ = try await $0.fetchAll() }
        #expect(error?.code == .decodingFailed)
        #expect(error?.location == url.absoluteString)
    }

    /// The one real wait of the suite: the server holds the body for 3 s, the timeout is 0.3 s.
    /// Had the request waited for the body, it would have succeeded: `timedOut` alone proves
    /// it gave up first (no wall-clock limit, which a loaded machine would break).
    @Test func slowBodyPastTheTimeoutIsTimedOut() async throws {
        let (error, url) = try await failure(answering: [.slow(delay: 3)], timeout: .milliseconds(300)) {
            todos in
            _ = try await todos.fetchAll()
        }
        #expect(error?.code == .timedOut)
        #expect(error?.location == url.absoluteString)
    }

    @Test func droppedConnectionIsUnavailable() async throws {
        let (error, _) = try await failure(answering: [.drop]) { _ = try await $0.fetchAll() }
        #expect(error?.code == .unavailable)
        #expect(error?.underlying != nil)
    }

    @Test func refusedConnectionIsUnavailable() async throws {
        let server = try await FixtureServer.start()
        let url = server.newCollection()
        await server.stop()  // nothing listens on the port any more
        let error = await #expect(throws: RepositoryError.self) {
            try await HTTPRepository<Todo>(baseURL: url).fetchAll()
        }
        #expect(error?.code == .unavailable)
        #expect(error?.location == url.absoluteString)
    }

    @Test func unknownHostIsUnavailable() async throws {
        // `.invalid` never resolves (RFC 6761).
        let url = try #require(URL(string: "http://repositories-fixture.invalid/todos"))
        let error = await #expect(throws: RepositoryError.self) {
            try await HTTPRepository<Todo>(baseURL: url).fetchAll()
        }
        #expect(error?.code == .unavailable)
    }

    @Test func failedBatchSaysWhichEntityFailedAndWhichWereSaved() async throws {
        try await withFixtureServer { server in
            let url = server.newCollection()
            let todos = HTTPRepository<Todo>(baseURL: url)
            try await server.script(url, [.pass, .pass, .status(503, headers: ["Retry-After": "1"])])
            let batch = Todo.numbered(4)
            let error = await #expect(throws: RepositoryError.self) {
                try await todos.save(contentsOf: batch)
            }
            #expect(error?.code == .unavailable, "the failure's own code, so a retry policy sees it")
            #expect(error?.retryAfter == .seconds(1))
            #expect(error?.id == "3")
            let reason = try #require(error?.reason)
            #expect(reason.contains("stopped at entity 3, 3 of 4"), "\(reason)")
            #expect(reason.contains("Already saved: 2 entities (1, 2)"), "\(reason)")
            #expect(try await todos.fetchAll() == Array(batch.prefix(2)), "REST has no transaction")
            #expect(
                try await server.log(url).filter { $0.method == "PUT" }.count == 3,
                "it stopped at the failure")
        }
    }

    @Test func unencodableEntityFailsTheBatchBeforeAnythingIsSent() async throws {
        try await withFixtureServer { server in
            let url = server.newCollection()
            let store = HTTPRepository<ConformanceEntity>(baseURL: url)
            let batch = [
                ConformanceEntity.make(index: 1, revision: 0), ConformanceEntity.unencodable(index: 2),
                ConformanceEntity.make(index: 3, revision: 0),
            ]
            let error = await #expect(throws: RepositoryError.self) {
                try await store.save(contentsOf: batch)
            }
            #expect(error?.code == .encodingFailed)
            #expect(error?.id == "2")
            let sent = try await server.log(url)
            #expect(sent.isEmpty, "nothing was sent")
        }
    }

    @Test func tokenProviderThatThrowsStopsTheRequest() async throws {
        struct SignedOut: Error {}
        try await withFixtureServer { server in
            let url = server.newCollection()
            let todos = HTTPRepository<Todo>(baseURL: url) { $0.tokenProvider = { throw SignedOut() } }
            let error = await #expect(throws: RepositoryError.self) { try await todos.fetchAll() }
            #expect(error?.code == .rejected)
            #expect(error?.underlying is SignedOut)
            let sent = try await server.log(url)
            #expect(sent.isEmpty, "nothing was sent")
        }
    }
}
