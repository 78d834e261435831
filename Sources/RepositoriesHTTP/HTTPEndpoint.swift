import Foundation

/// One request a ``HTTPRepository`` sends for an operation: a method, a URL, and headers of
/// its own.
///
/// ``HTTPRepository/Endpoints`` maps each operation to one; adapt them to the API you talk to:
///
/// ```swift
/// var configuration = HTTPRepository<Todo>.Configuration()
/// configuration.endpoints.save = { todo, resource in .post(resource.collection) }
/// ```
public struct HTTPEndpoint: Sendable, Hashable {
    /// The HTTP method, such as `GET` or `PUT`.
    public var method: String
    /// The URL the request goes to.
    public var url: URL
    /// Headers sent with this request only, on top of ``HTTPRepository/Configuration/headers``.
    public var headers: [String: String]
    /// A JSON body of the endpoint's own, for an operation that sends none (a `PATCH` that marks
    /// a row deleted, as ``HTTPRepository/Configuration/softDeleting(column:)`` makes); an
    /// operation's own body (an encoded entity) is sent instead of it. `nil` by default.
    public var body: Data?

    /// An endpoint with `method`, `url`, and optional headers and body of its own.
    public init(method: String, url: URL, headers: [String: String] = [:], body: Data? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    /// `GET url`.
    public static func get(_ url: URL) -> HTTPEndpoint { HTTPEndpoint(method: "GET", url: url) }
    /// `PUT url`.
    public static func put(_ url: URL) -> HTTPEndpoint { HTTPEndpoint(method: "PUT", url: url) }
    /// `POST url`.
    public static func post(_ url: URL) -> HTTPEndpoint { HTTPEndpoint(method: "POST", url: url) }
    /// `PATCH url`.
    public static func patch(_ url: URL) -> HTTPEndpoint { HTTPEndpoint(method: "PATCH", url: url) }
    /// `DELETE url`.
    public static func delete(_ url: URL) -> HTTPEndpoint { HTTPEndpoint(method: "DELETE", url: url) }

    /// A copy whose URL carries `items` in its query, after any it has.
    ///
    /// ```swift
    /// configuration.endpoints.fetchAll = { resource in
    ///     .get(resource.collection).adding(query: [URLQueryItem(name: "per_page", value: "100")])
    /// }
    /// ```
    public func adding(query items: [URLQueryItem]) -> HTTPEndpoint {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return self }
        components.queryItems = (components.queryItems ?? []) + items
        var copy = self
        copy.url = components.url ?? url
        return copy
    }

    /// A copy that sends `body` (JSON) when its operation sends none of its own.
    ///
    /// ```swift
    /// configuration.endpoints.delete = { id, resource in
    ///     .patch(resource.item(id)).with(body: Data(#"{"archived": true}"#.utf8))
    /// }
    /// ```
    public func with(body: Data) -> HTTPEndpoint {
        var copy = self
        copy.body = body
        return copy
    }

    /// A copy that also sends `value` in the header `name`.
    public func adding(header name: String, _ value: String) -> HTTPEndpoint {
        var copy = self
        copy.headers[name] = value
        return copy
    }
}
