import Foundation

/// A request as a web framework hands it to a ``SyncEndpoint``: plain values, so any
/// framework's route can make one (Vapor, Hummingbird, a bare SwiftNIO handler).
public struct SyncRequest: Sendable {
    /// The HTTP method, such as `GET` or `PUT`.
    public var method: String
    /// The path below the endpoint's collection: `""` for the collection itself, `"/changes"`
    /// for the feed, `"/42"` for an item (escaped as it came, `%2F` and all).
    public var path: String
    /// The query's items, in order.
    public var query: [URLQueryItem]
    /// The headers; names are matched whatever their case.
    public var headers: [String: String]
    /// The body, empty when there is none.
    public var body: Data

    /// A request from its parts.
    public init(
        method: String, path: String, query: [URLQueryItem] = [], headers: [String: String] = [:],
        body: Data = Data()
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }

    /// A request from the target a framework received (`/notes/42?x=1`, or an absolute URL),
    /// with the collection's path (`/notes`) taken off the front of its path.
    ///
    /// - Returns: `nil` when the target's path is not below `collectionPath`.
    public init?(
        method: String, target: String, below collectionPath: String, headers: [String: String] = [:],
        body: Data = Data()
    ) {
        guard let components = URLComponents(string: target) else { return nil }
        var prefix = collectionPath
        while prefix.hasSuffix("/") { prefix.removeLast() }
        let path = components.percentEncodedPath
        guard path == prefix || path.hasPrefix(prefix + "/") else { return nil }
        self.init(
            method: method, path: String(path.dropFirst(prefix.count)), query: components.queryItems ?? [],
            headers: headers, body: body)
    }

    /// The value of the header `name`, whatever its case.
    public func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// The value of the first query item `name`, if any.
    public func queryItem(_ name: String) -> String? {
        query.first { $0.name == name }?.value
    }
}

/// What a ``SyncEndpoint`` answers: a status, headers and a body, for the framework to send.
public struct SyncResponse: Sendable, Equatable {
    /// The status code, such as 200.
    public var status: Int
    /// The headers to send.
    public var headers: [String: String]
    /// The body, empty when there is none.
    public var body: Data

    /// A response from its parts.
    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON response: `body` with `Content-Type: application/json`.
    static func json(_ status: Int, _ body: Data) -> SyncResponse {
        SyncResponse(status: status, headers: ["Content-Type": "application/json"], body: body)
    }

    /// A JSON problem, `{"detail": "…"}`, as FastAPI and DRF answer one.
    static func problem(_ status: Int, _ detail: String) -> SyncResponse {
        // A dictionary of strings always encodes; an empty body would still carry the status.
        let body = (try? JSONEncoder().encode(["detail": detail])) ?? Data()
        return json(status, body)
    }
}
