import Foundation
import Repositories
import RepositoriesHTTP

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The Swift snippets of Docs/HTTP.md, verbatim, except the back-end presets': those are in
/// `Tests/RepositoriesHTTPTests/HTTPDocsSnippetTests.swift`, which runs them against a
/// recording transport.
enum HTTPSnippets {
    /// The product, checked by `ManifestSnippetTests`.
    static let manifest = ManifestSnippet(
        guide: "Docs/HTTP.md",
        fragment: """
            .target(name: "App", dependencies: [
                .product(name: "Repositories", package: "Repositories"),
                .product(name: "RepositoriesHTTP", package: "Repositories"),
            ])
            """,
        manifest: { fragment in
            """
            Package(
                name: "App",
                dependencies: [.package(path: "../Repositories")],
                targets: [
            \(fragment)
                ]
            )
            """
        })

    /// A todo whose ID the server assigns (zero until then).
    struct Todo: Identifiable, Codable, Sendable {
        var id: Int
        var title: String
        var done: Bool
    }

    struct Note: Identifiable, Codable, Sendable {
        var id: Int
        var title: String
    }

    /// The introduction: a remote with a file behind it.
    static func introduction(todosURL: URL) async throws -> some Repository<Todo, Int> {
        let api = HTTPRepository<Todo>(baseURL: URL(string: "https://api.example.com/todos")!)
        let todos = api.retrying(.default)  // honours Retry-After
            .fallback(to: try await FileRepository<Todo>(fileURL: todosURL))
        return todos
    }

    /// "The default conventions": a preset.
    static func preset(api: URL) -> HTTPRepository<Note> {
        let notes = HTTPRepository<Note>(baseURL: api, configuration: .djangoREST())
        return notes
    }

    /// Todos whose IDs the client chooses.
    enum ClientChosenIDs {
        struct Todo: Identifiable, Codable, Sendable {
            var id: UUID
            var title: String
        }

        /// "IDs in URLs": another spelling.
        static func idPath(url: URL) -> HTTPRepository<Todo> {
            let todos = HTTPRepository<Todo>(baseURL: url) { configuration in
                configuration.idPath = { id in id.uuidString.lowercased() }
            }
            return todos
        }
    }

    /// "What a refusal carries": a form shows each message beside its field.
    @MainActor final class TodoForm {
        var titleError: String?
        var formError: String?

        func submit(_ todo: Todo, to todos: HTTPRepository<Todo>) async throws {
            do {
                try await todos.save(todo)
            } catch let error as RepositoryError where error.code == .rejected {
                titleError = error.fieldErrors["title"]?.joined(separator: " ")  // beside the title field
                formError = error.fieldErrors[""]?.joined(separator: " ") ?? error.reason
            }
        }
    }

    /// "Adapting the endpoints": each snippet changes the configuration it is given.
    static func postToCreate(_ configuration: inout HTTPRepository<Todo>.Configuration) {
        configuration.endpoints.save = { todo, resource in .post(resource.collection) }
    }

    static func postOrPut(_ configuration: inout HTTPRepository<Todo>.Configuration) {
        configuration.endpoints.save = { todo, resource in
            todo.id == 0 ? .post(resource.collection) : .put(resource.item(todo.id))
        }
    }

    static func putThenPost(_ configuration: inout HTTPRepository<Todo>.Configuration) {
        configuration.saveStrategy = .putThenPostOnNotFound  // PUT; on 404, POST to endpoints.create
        // or .postThenPutOnConflict: POST; on 409, PUT
    }

    static func patchAndQuery(_ configuration: inout HTTPRepository<Todo>.Configuration) {
        configuration.endpoints.save = { todo, resource in .patch(resource.item(todo.id)) }
        configuration.endpoints.fetchAll = { resource in
            .get(resource.collection)
                .adding(query: [URLQueryItem(name: "per_page", value: "100")])
                .adding(header: "X-Fields", "id,title,done")
        }
    }

    static func wrappedLists(_ configuration: inout HTTPRepository<Todo>.Configuration) {
        configuration.coding = configuration.coding.unwrappingLists("results", nextPageKey: "next")
        configuration.coding = configuration.coding.unwrappingItems("note")  // {"note": {...}}
        configuration.coding = configuration.coding.unwrapping("data", nextPageKey: "next")  // both
    }

    static func pagesByOffset(_ configuration: inout HTTPRepository<Todo>.Configuration) {
        configuration.pageByOffset(limit: 100)  // offsetName: "offset", limitName: "limit"
    }

    static func pagesByCursor(_ configuration: inout HTTPRepository<Todo>.Configuration) {
        struct Listing: Decodable {
            var items: [Todo]
            var cursor: String?
        }

        configuration.coding.decodePage = { reply, decoder in
            let listing = try decoder.decode(Listing.self, from: reply.body)
            let next = listing.cursor.flatMap { cursor in
                var components = URLComponents(url: reply.url, resolvingAgainstBaseURL: true)
                components?.queryItems = [URLQueryItem(name: "cursor", value: cursor)]
                return components?.url
            }
            return HTTPRepository<Todo>.Page(entities: listing.items, next: next)
        }
    }

    static func snakeCase(_ configuration: inout HTTPRepository<Todo>.Configuration) {
        configuration.coding = configuration.coding.convertingKeysToSnakeCase()  // listName ⇄ list_name
    }

    static func coders(_ configuration: inout HTTPRepository<Todo>.Configuration) {
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

    static func collectionEndpoints(_ configuration: inout HTTPRepository<Todo>.Configuration) {
        configuration.endpoints.deleteAll = { resource in .delete(resource.collection) }
        configuration.endpoints.count = { resource in .get(resource.appending("count")) }
    }

    /// The app's sign-in session.
    struct Session: Sendable {
        func validAccessToken() async throws -> String? { "token" }
    }

    /// "Authentication": a token asked before every request.
    static func tokenProvider(url: URL, session: Session) -> HTTPRepository<Todo> {
        let todos = HTTPRepository<Todo>(baseURL: url) { configuration in
            configuration.tokenProvider = { try await session.validAccessToken() }  // Bearer <token>
        }
        return todos
    }

    @Sendable static func signature(of request: URLRequest) -> String { "signed" }

    /// "Authentication": a key and a signature.
    static func keyAndSignature(_ configuration: inout HTTPRepository<Todo>.Configuration, apiKey: String) {
        configuration.headers["X-API-Key"] = apiKey
        configuration.prepareRequest = { request in
            request.setValue(signature(of: request), forHTTPHeaderField: "X-Signature")
        }
    }

    static func merge(_ mine: Todo, into current: Todo) -> Todo {
        var merged = current
        merged.done = mine.done
        return merged
    }

    /// "ETags": a lost update caught.
    static func lostUpdates(url: URL) async throws {
        let todos = HTTPRepository<Todo>(baseURL: url) { $0.ifMatchOnSave = true }
        var todo = try await todos.require(id: 1)
        todo.done = true
        do {
            try await todos.save(todo)
        } catch let error as RepositoryError where error.code == .conflict {
            let current = try await todos.require(id: 1)  // read again, merge, save
            try await todos.save(merge(todo, into: current))
        }
    }

    /// "Batches are not atomic": a bulk endpoint.
    static func bulk(_ configuration: inout HTTPRepository<Todo>.Configuration) {
        configuration.endpoints.saveBatch = { _, resource in .post(resource.appending("bulk")) }
        configuration.coding.encodeBatch = { todos, encoder in try encoder.encode(["items": todos]) }
    }

    /// "Server-assigned IDs".
    static func create(notes: HTTPRepository<Note>, drafts: [Note]) async throws -> (Note, [Note]) {
        let note = try await notes.create(Note(id: 0, title: "Call the plumber"))  // note.id == 17
        let stored = try await notes.create(contentsOf: drafts)  // one per draft, in order
        return (note, stored)
    }

    static func keep(_ notes: [Note]) {}

    /// "Server-assigned IDs": the ones created before a failure.
    static func createdBeforeFailure(notes: HTTPRepository<Note>, drafts: [Note]) async throws {
        do {
            keep(try await notes.create(contentsOf: drafts))
        } catch let error as RepositoryError {
            if let partial = error.underlying as? HTTPRepository<Note>.CreatedBeforeFailure {
                keep(partial.created)  // drafts[0..<partial.created.count], as stored
            }
        }
    }
}
