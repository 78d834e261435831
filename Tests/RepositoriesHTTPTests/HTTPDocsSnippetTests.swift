import Foundation
import Repositories
import RepositoriesHTTP
import Testing

/// The back-end snippets of Docs/HTTP.md, verbatim, so a change that breaks one fails the
/// build; each runs against a recording transport to check it sends what the docs say.
///
/// Keep each function's body identical to its snippet in Docs/HTTP.md:
/// `DocsSnippetCoverageTests` (in DocsSnippetTests) looks for every Swift block of the docs
/// in this file and in that target's snippet files.
enum DocsSnippets {
    struct Note: Codable, Identifiable, Sendable, Equatable {
        var id: Int
        var title: String
    }

    /// What the Supabase snippet asks for a user's token.
    struct Session: Sendable {
        func accessToken() async throws -> String? {
            "user-token"
        }
    }

    static func plainREST(api: URL, transport: some HTTPTransport) async throws {
        let notes = HTTPRepository<Note>(
            baseURL: api.appending(path: "notes"), configuration: .rest, transport: transport)
        try await notes.save(Note(id: 1, title: "Call the plumber"))  // PUT /notes/1
    }

    static func fastAPI(api: URL, transport: some HTTPTransport) async throws {
        let notes = HTTPRepository<Note>(
            baseURL: api.appending(path: "notes/"), configuration: .fastAPI(), transport: transport)
        let note = try await notes.create(Note(id: 0, title: "Call the plumber"))  // POST /notes/ → its id
        try await notes.save(note)  // PUT /notes/{id}
    }

    static func djangoREST(api: URL, transport: some HTTPTransport) async throws {
        let notes = HTTPRepository<Note>(
            baseURL: api.appending(path: "notes"), configuration: .djangoREST(), transport: transport)
        _ = try await notes.fetchAll()  // GET /notes/, then every "next" page
        _ = try await notes.fetch(id: 42)  // GET /notes/42/
    }

    static func rails(api: URL, transport: some HTTPTransport) async throws {
        let notes = HTTPRepository<Note>(
            baseURL: api.appending(path: "notes"), configuration: .rails(rootKey: "note"),
            transport: transport)
        try await notes.save(Note(id: 7, title: "Call the plumber"))  // PUT /notes/7, POST /notes on 404
    }

    static func jsonServer(api: URL, transport: some HTTPTransport) async throws {
        let notes = HTTPRepository<Note>(
            baseURL: api.appending(path: "notes"), configuration: .jsonServer(), transport: transport)
        let note = try await notes.create(Note(id: 0, title: "Call the plumber"))  // POST /notes, no "id"
        try await notes.save(note)  // PUT /notes/42
    }

    static func changeFeed(api: URL, transport: some HTTPTransport) async throws {
        var configuration = HTTPRepository<Note>.Configuration.fastAPI()
        configuration.changeFeed = .changesEndpoint()  // GET /notes/changes?since=…&limit=…
        let notes = HTTPRepository<Note>(
            baseURL: api.appending(path: "notes/"), configuration: configuration, transport: transport)
        let page = try await notes.changes(since: nil, limit: 500)  // the first page: every note there is
        _ = try await notes.changes(since: page.next, limit: 500)  // what changed since
    }

    static func djangoRESTChangeFeed() -> HTTPRepository<Note>.Configuration {
        var configuration = HTTPRepository<Note>.Configuration.djangoREST(pageSize: 100)
        configuration.changeFeed = .changesEndpoint()  // GET /notes/changes/?since=…&limit=…
        return configuration
    }

    static func supabase(project: URL, anonKey: String, session: Session, transport: some HTTPTransport)
        async throws
    {
        let notes = HTTPRepository<Note>(
            baseURL: project.appending(path: "rest/v1/notes"),
            configuration: .postgREST(apiKey: anonKey, tokenProvider: { try await session.accessToken() }),
            transport: transport)
        try await notes.save(contentsOf: [Note(id: 1, title: "a"), Note(id: 2, title: "b")])  // one upsert
        _ = try await notes.count()  // Content-Range: 0-0/2
    }

    static func postgRESTChangeFeed(project: URL, anonKey: String, transport: some HTTPTransport) async throws
    {
        var configuration = HTTPRepository<Note>.Configuration.postgREST(apiKey: anonKey)
        configuration.softDeleting(column: "deleted")  // delete: PATCH deleted=true; reads skip deleted rows
        configuration.changeFeed = .postgREST(updatedAt: "updated_at", deleted: "deleted", primaryKey: "id")
        let notes = HTTPRepository<Note>(
            baseURL: project.appending(path: "rest/v1/notes"), configuration: configuration,
            transport: transport)
        let page = try await notes.changes(since: nil, limit: 500)  // every note not deleted
        _ = try await notes.changes(since: page.next, limit: 500)  // the rows after (updated_at, id)
        try await notes.delete(id: 42)  // PATCH /rest/v1/notes?id=eq.42&deleted=is.false
    }
}

@Suite struct HTTPDocsSnippetTests {
    func run(_ snippet: (URL, RecordingTransport) async throws -> Void) async throws -> [String] {
        let base = try #require(URL(string: "https://api.example.com"))
        let transport = RecordingTransport { request in
            switch (request.method, request.url.lastPathComponent) {
            case ("GET", "notes") where request.url.query?.contains("updated_at") == true:
                (
                    200, [:],
                    #"[{"id":42,"title":"a","updated_at":"2024-05-01T09:30:00.5+00:00","deleted":false}]"#
                )
            case ("GET", "notes"): (200, [:], #"{"count":1,"next":null,"results":[{"id":42,"title":"a"}]}"#)
            case ("GET", "42"): (200, [:], #"{"id":42,"title":"a"}"#)
            case ("GET", "changes"): (200, [:], #"{"saved":[],"deleted":[],"next":"c1","more":false}"#)
            case ("GET", _): (200, ["Content-Range": "0-0/2"], #"[{"id":42,"title":"a"}]"#)
            case ("PUT", "7"): (404, [:], "")
            default: (201, [:], #"{"id":42,"title":"Call the plumber"}"#)
            }
        }
        try await snippet(base, transport)
        return transport.requests.map(\.line)
    }

    @Test func snippetsSendWhatTheDocsSay() async throws {
        #expect(
            try await run { try await DocsSnippets.plainREST(api: $0, transport: $1) } == ["PUT /notes/1"])
        #expect(
            try await run { try await DocsSnippets.fastAPI(api: $0, transport: $1) } == [
                "POST /notes/", "PUT /notes/42",
            ])
        #expect(
            try await run { try await DocsSnippets.djangoREST(api: $0, transport: $1) } == [
                "GET /notes/", "GET /notes/42/",
            ])
        #expect(
            try await run { try await DocsSnippets.rails(api: $0, transport: $1) } == [
                "PUT /notes/7", "POST /notes",
            ])
        #expect(
            try await run { try await DocsSnippets.jsonServer(api: $0, transport: $1) } == [
                "POST /notes", "PUT /notes/42",
            ])
        #expect(
            try await run {
                try await DocsSnippets.supabase(project: $0, anonKey: "anon", session: .init(), transport: $1)
            } == ["POST /rest/v1/notes", "GET /rest/v1/notes?select=id&limit=1"])
        let stamp = "%222024-05-01T09:30:00.5%2B00:00%22"
        #expect(
            try await run {
                try await DocsSnippets.postgRESTChangeFeed(project: $0, anonKey: "anon", transport: $1)
            } == [
                "GET /rest/v1/notes?deleted=is.false&order=updated_at.asc,id.asc&limit=500",
                "GET /rest/v1/notes?or=(updated_at.gt.\(stamp),and(updated_at.eq.\(stamp),id.gt.42))"
                    + "&order=updated_at.asc,id.asc&limit=500",
                "PATCH /rest/v1/notes?id=eq.42&deleted=is.false",
            ])
        #expect(
            try await run { try await DocsSnippets.changeFeed(api: $0, transport: $1) } == [
                "GET /notes/changes?limit=500", "GET /notes/changes?since=c1&limit=500",
            ])
        #expect(
            try await run { api, transport in
                _ = try await HTTPRepository<DocsSnippets.Note>(
                    baseURL: api.appending(path: "notes"), configuration: DocsSnippets.djangoRESTChangeFeed(),
                    transport: transport
                ).changes(since: SyncCursor("c1"), limit: 500)
            } == ["GET /notes/changes/?since=c1&limit=500"])
    }
}
