import Foundation
import Repositories
import RepositoriesHTTP
import Testing

/// Conditional requests: `If-None-Match` with a `304` answered from the last body, and
/// `If-Match` turning a lost update into `conflict`.
@Suite struct HTTPRepositoryETagTests {
    @Test func unchangedResourceIsServedFromTheLastBodyOnA304() async throws {
        try await withFixtureServer { server in
            let url = server.newCollection()
            let todos = HTTPRepository<Todo>(baseURL: url)
            try await todos.save(contentsOf: [.milk, .bread])
            #expect(try await todos.fetchAll() == [.milk, .bread])
            #expect(try await todos.fetchAll() == [.milk, .bread])
            #expect(try await todos.fetch(id: 2) == .bread)
            #expect(try await todos.fetch(id: 2) == .bread)

            let reads = try await server.log(url).filter { $0.method == "GET" }
            #expect(reads.map(\.status) == ["200", "304", "200", "304"])
            #expect(reads[0].header("If-None-Match") == nil)
            #expect(reads[1].header("If-None-Match")?.hasPrefix("\"") == true)
        }
    }

    @Test func aFailedReadKeepsTheLastBodyForTheNext304() async throws {
        try await withFixtureServer { server in
            let url = server.newCollection()
            let todos = HTTPRepository<Todo>(baseURL: url)
            try await todos.save(.milk)
            #expect(try await todos.fetchAll() == [.milk])
            try await server.script(url, [.status(503)])
            await #expect(throws: RepositoryError.self) { try await todos.fetchAll() }
            #expect(try await todos.fetchAll() == [.milk])
            let reads = try await server.log(url).filter { $0.method == "GET" }
            #expect(reads.map(\.status) == ["200", "503", "304"])
        }
    }

    @Test func changedResourceIsReadAfresh() async throws {
        try await withFixtureServer { server in
            let url = server.newCollection()
            let mine = HTTPRepository<Todo>(baseURL: url)
            let theirs = HTTPRepository<Todo>(baseURL: url)
            try await mine.save(.milk)
            #expect(try await mine.fetchAll() == [.milk])
            try await theirs.save(.bread)
            #expect(try await mine.fetchAll() == [.milk, .bread])
            let reads = try await server.log(url).filter { $0.method == "GET" }
            #expect(reads.map(\.status) == ["200", "200"])
            #expect(reads[1].header("If-None-Match") != nil)
        }
    }

    @Test func conditionalRequestsCanBeTurnedOff() async throws {
        try await withFixtureServer { server in
            let url = server.newCollection()
            let todos = HTTPRepository<Todo>(baseURL: url) { $0.conditionalRequests = false }
            try await todos.save(.milk)
            _ = try await todos.fetchAll()
            _ = try await todos.fetchAll()
            #expect(try await server.log(url).allSatisfy { $0.header("If-None-Match") == nil })
        }
    }

    @Test func ifMatchTurnsALostUpdateIntoConflict() async throws {
        try await withFixtureServer { server in
            let url = server.newCollection()
            let mine = HTTPRepository<Todo>(baseURL: url) { $0.ifMatchOnSave = true }
            let theirs = HTTPRepository<Todo>(baseURL: url) { $0.ifMatchOnSave = true }
            try await mine.save(.milk)
            var myEdit = try #require(try await mine.fetch(id: 1))
            var theirEdit = try #require(try await theirs.fetch(id: 1))

            theirEdit.done = true
            try await theirs.save(theirEdit)
            myEdit.title = "Buy oat milk"
            let error = await #expect(throws: RepositoryError.self) { try await mine.save(myEdit) }
            #expect(error?.code == .conflict)
            #expect(error?.id == "1")
            #expect(try await theirs.fetch(id: 1) == theirEdit, "their update was not lost")

            // Read again, merge, save: the documented recovery.
            var merged = try #require(try await mine.fetch(id: 1))
            merged.title = myEdit.title
            try await mine.save(merged)
            #expect(try await theirs.fetch(id: 1) == Todo(id: 1, title: "Buy oat milk", done: true))

            let puts = try await server.log(url).filter { $0.method == "PUT" }
            #expect(puts.map { $0.header("If-Match") != nil } == [false, true, true, true])
        }
    }

    /// `If-Match` is about the request's target: a save posted to the collection carries
    /// neither the collection's tag nor the entity's.
    @Test func ifMatchGoesOnlyWithWritesToTheEntitysOwnURL() async throws {
        try await withFixtureServer { server in
            let url = server.newCollection()
            let todos = HTTPRepository<Todo>(baseURL: url) { configuration in
                configuration.ifMatchOnSave = true
                configuration.endpoints.save = { _, resource in .post(resource.collection) }
            }
            try await todos.save(.milk)
            #expect(try await todos.fetchAll() == [.milk])  // the collection's URL now has a tag
            try await todos.save(.bread)
            #expect(try await todos.fetch(id: 1) == .milk)
            try await todos.save(Todo(id: 1, title: "Buy oat milk"))

            let posts = try await server.log(url).filter { $0.method == "POST" }
            #expect(posts.allSatisfy { $0.header("If-Match") == nil })
        }
    }

    @Test func withoutIfMatchTheLastWriteWins() async throws {
        try await withFixtureServer { server in
            let url = server.newCollection()
            let mine = HTTPRepository<Todo>(baseURL: url)
            let theirs = HTTPRepository<Todo>(baseURL: url)
            try await mine.save(.milk)
            _ = try await mine.fetch(id: 1)
            try await theirs.save(Todo(id: 1, title: "theirs"))
            try await mine.save(Todo(id: 1, title: "mine"))
            #expect(try await theirs.fetch(id: 1)?.title == "mine")
            #expect(try await server.log(url).allSatisfy { $0.header("If-Match") == nil })
        }
    }
}
