import Foundation
import Repositories
import RepositoriesHTTP

// Docs/Queries.md, "Over HTTP": the snippet verbatim, compiled. Tests/RepositoriesHTTPTests/
// HTTPQueryTests.swift runs the same request against the fixture's PostgREST tables and checks
// the URL it sends.

enum QueriesOverHTTPSnippets {
    /// A game's score, a PostgREST table's row.
    struct Score: Identifiable, Codable, Sendable, QueryableEntity {
        var id: Int
        var points: Int

        static let queryableFields: [QueryableField<Score>] = [QueryableField(\.points, name: "points")]
    }

    /// The list screen's page.
    static func page(anonKey: String) async throws -> [Score] {
        let scores = HTTPRepository<Score>(
            baseURL: URL(string: "https://project.supabase.co/rest/v1/scores")!,
            configuration: .postgREST(apiKey: anonKey, order: "created_at", codePointTextOrder: true))
        let page = try await scores.fetch(
            Query<Score>().where(\.points < 500_000).sorted(by: \.points, .descending).limit(20))
        // GET …/scores?points=lt.500000&order=points.desc.nullslast,created_at,id&offset=0&limit=20
        return page
    }
}
