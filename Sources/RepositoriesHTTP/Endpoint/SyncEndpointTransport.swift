import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An `HTTPTransport` that hands each request to a ``SyncEndpoint`` in the same process,
/// without sockets: for tests, previews and benchmarks of a device syncing with the Swift
/// server half, through every line of `HTTPRepository`'s HTTP handling.
///
/// ```swift
/// let server = SyncEndpoint(store: InMemoryRepository<Note>())
/// let notes = HTTPRepository<Note>(
///     baseURL: URL(string: "https://sync.example/notes")!,
///     configuration: .init(changeFeed: .changesEndpoint()),
///     transport: SyncEndpointTransport(server, at: "/notes"))
/// ```
public struct SyncEndpointTransport: HTTPTransport {
    private let respond: @Sendable (SyncRequest) async -> SyncResponse
    private let collectionPath: String

    /// A transport to `endpoint`, serving the collection at `collectionPath` (the path of the
    /// repository's `baseURL`); requests to other paths answer `404`.
    public init<Store>(_ endpoint: SyncEndpoint<Store>, at collectionPath: String) {
        self.respond = { await endpoint.respond(to: $0) }
        self.collectionPath = collectionPath
    }

    /// Hands `request` to the endpoint and returns its answer.
    ///
    /// - Throws: `CancellationError` when the task was cancelled before the endpoint answered.
    public func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        guard let url = request.url else { throw URLError(.badURL) }
        try Task.checkCancellation()
        let response: SyncResponse
        if let asked = SyncRequest(
            method: request.httpMethod ?? "GET", target: url.absoluteString, below: collectionPath,
            headers: request.allHTTPHeaderFields ?? [:], body: request.httpBody ?? Data())
        {
            response = await respond(asked)
        } else {
            response = .problem(404, "No collection is served at \(url.path)")
        }
        try Task.checkCancellation()
        guard
            let answer = HTTPURLResponse(
                url: url, statusCode: response.status, httpVersion: "HTTP/1.1", headerFields: response.headers
            )
        else { throw URLError(.badServerResponse) }
        return (response.body, answer)
    }
}
