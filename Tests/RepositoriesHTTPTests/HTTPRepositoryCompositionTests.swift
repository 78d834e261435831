import Foundation
import Repositories
import RepositoriesHTTP
import RepositoriesTesting
import Testing

/// `HTTPRepository` under the package's decorators: the local copy of `fallback(to:)`
/// answers when the server goes away, and `.retrying` waits as long as `Retry-After` asks.
@Suite struct HTTPRepositoryCompositionTests {
    @Test func localCopyIsServedOnceTheServerStops() async throws {
        try await withFixtureServer { server in
            let url = server.newCollection()
            let remote = HTTPRepository<Todo>(baseURL: url)
            let local = InMemoryRepository<Todo>()
            let todos = remote.fallback(to: local)

            try await todos.save(.milk)
            try await todos.save(.bread)
            #expect(try await todos.fetchAll() == [.milk, .bread])

            await server.stop()
            let offline = await #expect(throws: RepositoryError.self) { try await remote.fetchAll() }
            #expect(offline?.code == .unavailable)
            #expect(try await todos.fetchAll() == [.milk, .bread])
            #expect(try await todos.fetch(id: 2) == .bread)
            let writeError = await #expect(throws: RepositoryError.self) { try await todos.save(.eggs) }
            #expect(writeError?.code == .unavailable, "writes go to the remote first")
            #expect(
                try await local.fetchAll() == [.milk, .bread], "a failed remote write leaves local untouched")
        }
    }

    @Test func retryingWaitsAsLongAsRetryAfterAsks() async throws {
        try await withFixtureServer { server in
            let url = server.newCollection()
            let remote = HTTPRepository<Todo>(baseURL: url)
            try await remote.save(.milk)
            try await server.script(url, [.status(503, headers: ["Retry-After": "5"])])
            let clock = ManualClock()
            let policy = RetryPolicy(maxAttempts: 2, baseDelay: .milliseconds(1), jitter: .none)
            let todos = remote.retrying(policy, clock: clock)

            let task = Task { try await todos.fetchAll() }
            await clock.waitForSleepers(count: 1)
            await clock.advance(by: .milliseconds(4_990))
            #expect(clock.sleeperCount == 1, "still waiting: the server asked for 5 s, the policy for 1 ms")
            await clock.advance(by: .milliseconds(10))
            #expect(try await task.value == [.milk])
            let reads = try await server.log(url).filter { $0.method == "GET" }
            #expect(reads.map(\.status) == ["503", "200"])
        }
    }
}
