import Foundation
import Repositories
import RepositoriesHTTP
import RepositoriesPostgres
import RepositoriesSQLite

#if canImport(Vapor)
    import Vapor
#endif

/// The Swift snippets of Docs/SyncServer.md, verbatim.
struct SyncServerSnippets {
    struct Note: Identifiable, Codable, Sendable {
        var id: String
        var text: String
    }

    func introduction() async throws -> SyncResponse {
        let notes = try await PostgresRepository<Note>(
            connectionString: "postgresql://app:secret@db.internal/app",
            options: PostgresOptions(tableName: "notes", poolSize: 8))
        let endpoint = SyncEndpoint(store: notes)
        let answer = await endpoint.respond(to: SyncRequest(method: "GET", path: "/changes"))
        // answer.status == 200, answer.body == {"saved": [...], "deleted": [...], "next": "…", "more": false}
        return answer
    }

    func pruning(notes: PostgresRepository<Note>) async throws {
        try await notes.pruneIdempotencyKeys(olderThan: .seconds(90 * 24 * 3600))
    }

    #if canImport(Vapor)
        func mount<Store>(_ endpoint: SyncEndpoint<Store>, at path: String, on app: Application) {
            let respond: @Sendable (Request) async throws -> Response = { request in
                guard
                    let asked = SyncRequest(
                        method: request.method.rawValue, target: request.url.string, below: path,
                        headers: Dictionary(
                            request.headers.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 }),
                        body: request.body.data.map { Data($0.readableBytesView) } ?? Data())
                else { throw Abort(.notFound) }
                let answer = await endpoint.respond(to: asked)
                return Response(
                    status: HTTPResponseStatus(statusCode: answer.status),
                    headers: HTTPHeaders(answer.headers.map { ($0.key, $0.value) }),
                    body: .init(data: answer.body))
            }
            let segments = path.split(separator: "/").map { PathComponent(stringLiteral: String($0)) }
            for method in [HTTPMethod.GET, .PUT, .POST, .DELETE] {
                app.on(method, segments, body: .collect(maxSize: "16mb"), use: respond)
                app.on(method, segments + ["**"], body: .collect(maxSize: "16mb"), use: respond)
            }
        }
    #endif

    func device(directory: URL) async throws {
        let remote = HTTPRepository<Note>(
            baseURL: URL(string: "https://api.example.com/notes")!,
            configuration: .init(changeFeed: .changesEndpoint())
        ).retrying()
        let notes = remote.offlineFirst(
            local: try await SQLiteRepository<Note>(fileURL: directory.appending(path: "notes.sqlite")),
            outbox: try await Outbox<Note>(fileURL: directory.appending(path: "notes.outbox")))
        _ = notes
    }

    func testing() {
        let server = SyncEndpoint(store: InMemoryRepository<Note>())
        let client = HTTPRepository<Note>(
            baseURL: URL(string: "https://sync.example/notes")!,
            configuration: .init(changeFeed: .changesEndpoint()),
            transport: SyncEndpointTransport(server, at: "/notes"))
        _ = client
    }
}
