import Foundation
import RepositoriesHTTP
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A transport that answers from a closure and records every request, for checking the exact
/// requests a preset sends to a back-end the tests cannot run.
final class RecordingTransport: HTTPTransport {
    /// One request as sent.
    struct Sent: Sendable {
        var method: String
        var url: URL
        var headers: [String: String]
        var body: String

        /// `"PUT /notes/5"`, with a trailing slash and the query when there are.
        var line: String {
            let components = URLComponents(url: url, resolvingAgainstBaseURL: true)
            return "\(method) \(components?.percentEncodedPath ?? url.path)"
                + (components?.percentEncodedQuery.map { "?\($0)" } ?? "")
        }
    }

    /// What the server answers: status, headers, body.
    typealias Answer = (status: Int, headers: [String: String], body: String)

    private let answer: @Sendable (Sent) -> Answer
    private let sent = Mutex<[Sent]>([])

    init(_ answer: @escaping @Sendable (Sent) -> Answer) {
        self.answer = answer
    }

    /// The requests sent so far, in order.
    var requests: [Sent] { sent.withLock { $0 } }

    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        guard let url = request.url else { throw URLError(.badURL) }
        let record = Sent(
            method: request.httpMethod ?? "GET", url: url, headers: request.allHTTPHeaderFields ?? [:],
            body: String(decoding: request.httpBody ?? Data(), as: UTF8.self))
        sent.withLock { $0.append(record) }
        let (status, headers, body) = answer(record)
        guard
            let response = HTTPURLResponse(
                url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)
        else { throw URLError(.badServerResponse) }
        return (Data(body.utf8), response)
    }
}
