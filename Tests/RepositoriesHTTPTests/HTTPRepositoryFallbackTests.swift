import Foundation
import Repositories
import RepositoriesHTTP
import Testing

/// `HTTPRepository` as the remote of `fallback(to:)`: when the server goes away, the local
/// copy answers.
@Suite struct HTTPRepositoryFallbackTests {
    @Test func localCopyIsServedOnceTheServerStops() async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        let url = server.newCollection()
        let remote = HTTPRepository<Todo>(baseURL: url)
        let local = InMemoryRepository<Todo>()
        let todos = remote.fallback(to: local)

        try await todos.save(.milk)
        try await todos.save(.bread)
        #expect(try await todos.fetchAll() == [.milk, .bread])

        server.stop()
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
