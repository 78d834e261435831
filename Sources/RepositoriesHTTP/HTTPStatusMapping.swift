import Foundation
import Repositories

/// How a status code becomes a `RepositoryError`.
///
/// | status | error |
/// |---|---|
/// | 2xx | none |
/// | 401, 403 | `rejected` |
/// | 409, 412 | `conflict` |
/// | 429, 503 | `unavailable`, with `Retry-After` in `retryAfter` |
/// | other 5xx | `unavailable` (with `retryAfter` when the server sent one) |
/// | 3xx not followed, other 4xx | `rejected`, quoting the start of the body |
///
/// A `404` on an item `GET` (→ `nil`) and on a `DELETE` (→ done) is handled by the caller.
///
/// Every error made here keeps the status in `httpStatus`, the body's first 64 KiB in
/// `responseBody`, and the messages by field the body holds in `fieldErrors` (see
/// ``HTTPFieldErrors``).
enum HTTPStatusMapping {
    /// How much of an error's body is kept: enough for any validation error, while a huge
    /// error page does not stay in memory with the error.
    static let keptBodyLength = 64 * 1_024

    /// The error `reply`'s status stands for, or `nil` for a 2xx.
    ///
    /// - Parameter fieldName: the Swift property name of a key the server sent, for
    ///   `fieldErrors`.
    static func error(
        for reply: HTTPReply, id: String? = nil, fieldName: (String) -> String = { $0 }
    ) -> RepositoryError? {
        let status = reply.status
        if (200..<300).contains(status) { return nil }
        let answered = "\(reply.method) \(reply.url.absoluteString) answered \(status)\(phrase(status))"
        let said = reply.body.isEmpty ? "" : "; the server said: \(reply.bodyExcerpt())"
        let location = reply.url.absoluteString
        var error: RepositoryError
        switch status {
        case 401:
            error = .rejected(
                "\(answered): the request was not authenticated\(said)",
                recovery: "Check the credentials or the token provider; it is asked again for every request")
        case 403:
            error = .rejected(
                "\(answered): the credentials do not allow this request\(said)",
                recovery: "Check the account's permissions for this resource")
        case 409:
            error = .conflict("\(answered): the write conflicts with the resource's current state\(said)")
        case 412:
            error = .conflict(
                "\(answered): the entity changed on the server since this client last read it (If-Match failed)"
            )
        case 429:
            error = .unavailable(
                "\(answered): too many requests\(said)", location: location,
                retryAfter: RetryAfter.parse(reply.header("Retry-After")))
        case 500..<600:
            error = .unavailable(
                "\(answered)\(said)", location: location,
                retryAfter: RetryAfter.parse(reply.header("Retry-After")))
        case 300..<400:
            let target = reply.header("Location").flatMap(reply.resolve)
            error = .rejected(
                "\(answered), a redirect\(target.map { " to \($0.absoluteString)" } ?? ""), which is not followed",
                recovery: redirectRecovery(from: reply.url, to: target))
        default:
            error = .rejected(
                "\(answered)\(said)",
                recovery: "Check that the endpoint, headers and body match what the API expects")
        }
        error.location = location
        if let id { error.id = id }
        error.httpStatus = status
        error.responseBody = kept(reply.body)
        error.fieldErrors = HTTPFieldErrors.parse(
            reply.body, contentType: reply.header("Content-Type"), fieldName: fieldName)
        return error
    }

    /// The start of `body`, copied, so that the rest of a huge body is freed with the reply.
    static func kept(_ body: Data) -> Data {
        guard body.count > keptBodyLength else { return body }
        return body.prefix(keptBodyLength).withUnsafeBytes { Data($0) }
    }

    /// What to do about a redirect from `url` to `target` (when known): add the trailing
    /// slash the server wants, or point the repository at the new URL.
    static func redirectRecovery(from url: URL, to target: URL?) -> String {
        let slashed =
            url.path.hasSuffix("/")
            ? nil
            : url.absoluteString.replacingOccurrences(
                of: url.path, with: url.path + "/")
        if target == nil || target?.absoluteString == slashed || target?.path == url.path + "/" {
            return
                "If the server's URLs end in a slash (Django REST Framework's do), set configuration.trailingSlash = true; "
                + "otherwise point the repository at the URL the server redirects to"
        }
        return "Point the repository at the URL the server redirects to; redirects are never followed, "
            + "since a client that follows one may turn a write into a read"
    }

    /// `" Reason Phrase"` for the common statuses, empty for the rest.
    static func phrase(_ status: Int) -> String {
        let phrases: [Int: String] = [
            300: "Multiple Choices", 301: "Moved Permanently", 302: "Found", 303: "See Other",
            307: "Temporary Redirect", 308: "Permanent Redirect", 400: "Bad Request", 401: "Unauthorized",
            403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed", 406: "Not Acceptable",
            409: "Conflict", 410: "Gone", 412: "Precondition Failed", 413: "Content Too Large",
            415: "Unsupported Media Type", 422: "Unprocessable Content", 428: "Precondition Required",
            429: "Too Many Requests", 500: "Internal Server Error", 501: "Not Implemented",
            502: "Bad Gateway",
            503: "Service Unavailable", 504: "Gateway Timeout",
        ]
        return phrases[status].map { " \($0)" } ?? ""
    }
}
