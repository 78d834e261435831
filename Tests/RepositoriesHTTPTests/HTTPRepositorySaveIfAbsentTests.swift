import Foundation
import Repositories
import RepositoriesHTTP
import Testing

/// `saveIfAbsent(_:)`: a create the server refuses once it holds the ID (`If-None-Match: *`,
/// or a `POST` that refuses a held ID), thrown as `conflict` with nothing written, and never
/// followed by a request that replaces.
@Suite struct HTTPRepositorySaveIfAbsentTests {
    @Test func aPutToTheItemCarriesIfNoneMatchStarAndA412IsAConflict() async throws {
        try await withFixtureServer { server in
            let url = server.newCollection()
            let mine = HTTPRepository<Todo>(baseURL: url)
            let theirs = HTTPRepository<Todo>(baseURL: url) { $0.ifMatchOnSave = true }
            try await withIdempotencyKey("create-milk") { try await mine.saveIfAbsent(.milk) }
            #expect(try await theirs.fetch(id: 1) == .milk, "created; theirs now knows its tag")

            let error = await #expect(throws: RepositoryError.self) {
                try await theirs.saveIfAbsent(Todo(id: 1, title: "Buy oat milk"))
            }
            #expect(error?.code == .conflict)
            #expect(error?.httpStatus == 412)
            #expect(error?.id == "1")
            #expect(error?.reason.contains("holds a copy") == true, "\(String(describing: error))")
            #expect(try await mine.fetch(id: 1) == .milk, "nothing was written")

            let puts = try await server.log(url).filter { $0.method == "PUT" }
            #expect(puts.map(\.status) == ["201", "412"])
            #expect(puts.allSatisfy { $0.header("If-None-Match") == "*" })
            #expect(puts.allSatisfy { $0.header("If-Match") == nil }, "no tag: the condition is absence")
            #expect(puts.first?.header("Idempotency-Key") == "create-milk")
        }
    }

    /// A configuration whose `PUT` only replaces, or that posts first, creates by its create
    /// request alone, with the key a save's create request would carry; a `409` there is a
    /// conflict and no `PUT` follows. (The fixture's `POST` upserts, so the refusal is
    /// scripted, as FastAPI's "Task already exists".)
    @Test(arguments: [HTTPSaveStrategy.putThenPostOnNotFound, .postThenPutOnConflict])
    func aCreateByPostIsAConflictOn409AndNoPutFollows(strategy: HTTPSaveStrategy) async throws {
        try await withFixtureServer { server in
            let url = server.newCollection()
            let todos = HTTPRepository<Todo>(baseURL: url) { $0.saveStrategy = strategy }
            try await withIdempotencyKey("create-milk") { try await todos.saveIfAbsent(.milk) }
            try await server.script(url, [.status(409, body: #"{"detail": "Task already exists"}"#)])
            let error = await #expect(throws: RepositoryError.self) {
                try await todos.saveIfAbsent(Todo(id: 1, title: "Buy oat milk"))
            }
            #expect(error?.code == .conflict)
            #expect(error?.httpStatus == 409)
            #expect(error?.reason.contains("Task already exists") == true, "\(String(describing: error))")
            #expect(try await todos.fetch(id: 1) == .milk, "nothing was written")

            let writes = try await server.log(url).filter { $0.method != "GET" }
            #expect(writes.map(\.line) == ["POST \(url.path)", "POST \(url.path)"])
            #expect(
                writes.allSatisfy { $0.header("If-None-Match") == nil }, "a POST's target is the collection")
            let key = strategy == .putThenPostOnNotFound ? "create-milk-create" : "create-milk"
            #expect(writes.first?.header("Idempotency-Key") == key)
        }
    }

    /// PostgREST saves by an upsert to the table; a create there is its plain insert, which
    /// the database refuses for a held key.
    @Test func postgRESTCreatesByAnInsertThatRefusesAHeldKey() async throws {
        try await withFixtureServer { server in
            let url = server.root.appending(path: "rest/v1/notes-\(UUID().uuidString.lowercased())")
            let todos = HTTPRepository<Todo>(baseURL: url, configuration: .postgREST(apiKey: "anon-key"))
            try await todos.saveIfAbsent(.milk)
            let error = await #expect(throws: RepositoryError.self) {
                try await todos.saveIfAbsent(Todo(id: 1, title: "Buy oat milk"))
            }
            #expect(error?.code == .conflict)
            #expect(error?.httpStatus == 409)
            #expect(try await todos.fetch(id: 1) == .milk, "nothing was written")

            let writes = try await server.log(url).filter { $0.method != "GET" }
            #expect(writes.map(\.method) == ["POST", "POST"])
            #expect(writes.allSatisfy { $0.header("Prefer") == "return=representation" }, "no upsert")
        }
    }
}
