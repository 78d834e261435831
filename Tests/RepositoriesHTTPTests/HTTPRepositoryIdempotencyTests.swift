import Foundation
import Repositories
import RepositoriesHTTP
import RepositoriesTesting
import Testing

/// Every write carries an `Idempotency-Key`, the same on every attempt of one logical write,
/// so a server that keeps keys applies a retried write once.
@Suite struct HTTPRepositoryIdempotencyTests {
    let retry = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(1), jitter: .none)

    @Test func everyAttemptOfARetriedWriteCarriesOneKey() async throws {
        try await withFixtureServer { server in
            let url = server.newCollection()
            let todos = HTTPRepository<Todo>(baseURL: url).retrying(retry)
            try await server.script(url, [.status(503)])
            try await todos.save(.milk)
            try await todos.save(.bread)
            let keys = try await server.log(url).map { $0.header("Idempotency-Key") }
            #expect(keys.count == 3)
            #expect(keys[0] != nil && keys[0] == keys[1], "the retry is the same write")
            #expect(keys[2] != nil && keys[2] != keys[0], "another write, another key")
        }
    }

    @Test func writeWhoseAnswerWasLostIsAppliedOnce() async throws {
        try await withFixtureServer { server in
            let url = server.newCollection()
            let todos = HTTPRepository<Todo>(baseURL: url).retrying(retry)
            try await server.script(url, [.loseAnswer])
            try await todos.save(.milk)
            let log = try await server.log(url)
            #expect(log.map(\.line) == ["PUT \(url.path)/1", "PUT \(url.path)/1"])
            #expect(log[1].replayed == true, "the server saw the key again and answered as the first time")
            #expect(try await HTTPRepository<Todo>(baseURL: url).fetchAll() == [.milk])
        }
    }

    @Test func callerSetKeyIsSentAndEachRequestOfABatchDerivesItsOwn() async throws {
        try await withFixtureServer { server in
            let url = server.newCollection()
            let todos = HTTPRepository<Todo>(baseURL: url)
            try await withIdempotencyKey("change-7") { try await todos.save(.milk) }
            try await withIdempotencyKey("batch-8") { try await todos.save(contentsOf: Todo.numbered(3)) }
            try await withIdempotencyKey("delete-9") { try await todos.delete(ids: [1, 2]) }
            let keys = try await server.log(url).map { $0.header("Idempotency-Key") ?? "none" }
            #expect(
                keys == [
                    "change-7", "batch-8-1", "batch-8-2", "batch-8-3", "delete-9-1", "delete-9-2",
                ])
        }
    }

    @Test func retriedBatchReplaysTheSavedAndAppliesTheRest() async throws {
        try await withFixtureServer { server in
            let url = server.newCollection()
            let todos = HTTPRepository<Todo>(baseURL: url).retrying(retry)
            try await server.script(url, [.pass, .pass, .status(503)])
            try await todos.save(contentsOf: Todo.numbered(3))
            let log = try await server.log(url)
            #expect(log.count == 6)
            #expect(log.suffix(3).map { $0.replayed == true } == [true, true, false])
            #expect(
                log.prefix(3).map { $0.header("Idempotency-Key") }
                    == log.suffix(3).map { $0.header("Idempotency-Key") })
        }
    }

    @Test func headerCanBeTurnedOffOrRenamed() async throws {
        try await withFixtureServer { server in
            let url = server.newCollection()
            try await HTTPRepository<Todo>(baseURL: url) { $0.idempotencyKeyHeader = nil }.save(.milk)
            try await HTTPRepository<Todo>(baseURL: url) { $0.idempotencyKeyHeader = "X-Request-Id" }.save(
                .bread)
            _ = try await HTTPRepository<Todo>(baseURL: url).fetchAll()
            let log = try await server.log(url)
            #expect(log[0].header("Idempotency-Key") == nil)
            #expect(log[1].header("X-Request-Id") != nil && log[1].header("Idempotency-Key") == nil)
            #expect(log[2].header("Idempotency-Key") == nil, "a read carries no key")
        }
    }
}
