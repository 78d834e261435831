import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The fixture server's PostgREST change-feed tables (`feed-…`): their `updated_at` stamps come
/// from a clock the tests can move, and their soft-deleted rows can be purged.
extension FixtureServer {
    /// A new, empty change-feed table: `/rest/v1/feed-<uuid>`.
    func newFeedTable() -> URL {
        root.appending(path: "rest/v1/feed-\(UUID().uuidString.lowercased())")
    }

    /// Moves the server's clock (its `Date` headers and its stamps) `seconds` forward.
    func advanceClock(seconds: Int) async throws {
        _ = try await call("POST", "/__advance-clock?seconds=\(seconds)")
    }

    /// Removes `table`'s soft-deleted rows, as a retention job does, through PostgREST
    /// (`DELETE …?deleted=is.true`).
    func purgeSoftDeleted(_ table: URL) async throws {
        guard let url = URL(string: table.absoluteString + "?deleted=is.true") else {
            throw ServerError("bad table URL \(table)")
        }
        var request = URLRequest(url: url)
        request.httpMethod = "DELETE"
        request.setValue("service-key", forHTTPHeaderField: "apikey")
        request.setValue("Bearer service-key", forHTTPHeaderField: "Authorization")
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard (200..<300).contains(status) else {
            throw ServerError(
                "the purge of \(table.path) answered \(status): \(String(decoding: data, as: UTF8.self))")
        }
    }
}
