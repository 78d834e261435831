import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sends one HTTP request and hands back what the server answered, whatever its status.
///
/// ``HTTPRepository`` builds each request (method, URL, headers, body, timeout), hands it
/// to a transport, then reads the status, headers and body itself. ``URLSessionTransport``
/// is the default; plug in another client (AsyncHTTPClient, a recording stub, a
/// signing proxy) by conforming to this protocol:
///
/// ```swift
/// struct RecordingTransport: HTTPTransport {
///     let base: any HTTPTransport
///     func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
///         print(request.httpMethod ?? "GET", request.url?.absoluteString ?? "")
///         return try await base.send(request)
///     }
/// }
/// let todos = HTTPRepository<Todo>(baseURL: url, transport: RecordingTransport(base: URLSessionTransport()))
/// ```
///
/// A conforming type must:
///
/// - return any response that arrived, 4xx and 5xx included: the repository maps statuses
///   to errors, so a transport that throws on them hides the `Retry-After` and the body;
/// - throw when no complete response arrived: a `URLError` (understood and mapped:
///   `.timedOut` to `timedOut`, the rest to `unavailable`), a `RepositoryError`
///   (passed on as it is), or any other error (reported as `unavailable`);
/// - honour task cancellation by abandoning the request and throwing promptly, so that
///   cancelling the caller's task stops the request on the wire. The repository enforces
///   its own per-request timeout by cancelling the call;
/// - not follow its own caching rules: the repository does conditional requests with ETags
///   itself and needs to see each `304 Not Modified`.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the body and the response, whatever the status.
    ///
    /// - Throws: when no complete response arrived (see the protocol's requirements), or
    ///   `CancellationError` when the task was cancelled.
    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse)
}
