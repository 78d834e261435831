import Foundation
import Repositories
import RepositoriesHTTP
import RepositoriesTestSupport
import RepositoriesTesting
import Testing

/// The offline-first stack over a real HTTP server (the fixture, which keeps idempotency
/// keys): a change whose answer was lost is sent again with its key and applied once.
@Suite struct OfflineFirstOverHTTPTests {
    private func device(_ url: URL, in directory: TemporaryDirectory) async throws
        -> OfflineFirstRepository<HTTPRepository<Todo>, FileRepository<Todo>>
    {
        let local = try await FileRepository<Todo>(fileURL: directory.file("todos.store"))
        let outbox = try await Outbox<Todo>(fileURL: directory.file("todos.outbox"))
        return HTTPRepository<Todo>(baseURL: url)
            .offlineFirst(local: local, outbox: outbox, conflicts: .lastWriterWins, automaticSync: nil)
    }

    @Test func aChangeWhoseAnswerWasLostIsSentAgainWithItsKeyAndAppliedOnce() async throws {
        try await withFixtureServer { server in
            let url = server.newCollection()
            let directory = try TemporaryDirectory()
            let todos = try await device(url, in: directory)
            try await todos.save(.milk)
            let key = try #require(try await todos.outbox.change(for: 1)?.idempotencyKey)

            // The conflict check's read passes; the server applies the PUT, and its answer is lost.
            try await server.script(url, [.pass, .loseAnswer])
            await #expect(throws: RepositoryError.self) { try await todos.sync() }
            guard case .pending(1, _) = try await todos.status(of: 1) else {
                Issue.record("a change whose answer was lost stays pending")
                return
            }

            try await todos.sync()
            // The HTTP stack may itself resend a request whose connection dropped; every try,
            // its and the sync's, is the one logical write.
            let puts = try await server.log(url).filter { $0.line.hasPrefix("PUT") }
            #expect(puts.count >= 2)
            #expect(puts.allSatisfy { $0.header("Idempotency-Key") == key }, "one logical write, one key")
            #expect(
                puts.dropFirst().allSatisfy { $0.replayed == true }, "applied once; every later try replayed")
            #expect(try await HTTPRepository<Todo>(baseURL: url).fetchAll() == [.milk])
            #expect(try await todos.outbox.changes().isEmpty)
        }
    }

    @Test func offlineEditsReachTheServerAfterARestart() async throws {
        try await withFixtureServer { server in
            let url = server.newCollection()
            let directory = try TemporaryDirectory()
            var todos = try await device(url, in: directory)
            try await todos.save(contentsOf: [.milk, .bread])
            try await todos.delete(id: 2)
            try await todos.local.close()
            try await todos.outbox.close()

            todos = try await device(url, in: directory)
            #expect(try await todos.fetchAll() == [.milk])
            try await todos.sync()
            #expect(try await HTTPRepository<Todo>(baseURL: url).fetchAll() == [.milk])
            #expect(try await todos.outbox.changes().isEmpty)
        }
    }
}
