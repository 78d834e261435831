import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a server answered to one request: the status, the headers and the body.
///
/// The decoding hooks of ``HTTPRepository/Coding`` receive one, so they can read a wrapped
/// body, a `Link` header or a total-count header.
public struct HTTPReply: Sendable {
    /// The method of the request answered.
    public var method: String
    /// The URL of the request answered.
    public var url: URL
    /// The status code, such as 200.
    public var status: Int
    /// The headers, by lowercased name.
    public var headers: [String: String]
    /// The body, empty when there was none.
    public var body: Data

    /// A reply made of its parts; header names are lowercased.
    public init(method: String, url: URL, status: Int, headers: [String: String], body: Data) {
        self.method = method
        self.url = url
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }) { first, _ in first }
        self.body = body
    }

    /// The reply a transport handed back for a request to `url` with `method`.
    public init(method: String, url: URL, response: HTTPURLResponse, body: Data) {
        var headers: [String: String] = [:]
        for (name, value) in response.allHeaderFields {
            headers["\(name)".lowercased()] = "\(value)"
        }
        self.init(method: method, url: url, status: response.statusCode, headers: headers, body: body)
    }

    /// The value of the header `name`, whatever its case, or `nil` when it was not sent.
    public func header(_ name: String) -> String? {
        headers[name.lowercased()]
    }

    /// `reference` (absolute, or relative to the URL answered) as an absolute URL.
    public func resolve(_ reference: String) -> URL? {
        URL(string: reference, relativeTo: url)?.absoluteURL
    }

    /// The target of the `Link` header's `rel="next"` entry (RFC 8288), resolved against the
    /// URL answered, or `nil` when there is none.
    public var nextPageLink: URL? {
        guard let value = header("Link") else { return nil }
        var rest = Substring(value)
        while let open = rest.firstIndex(of: "<"), let close = rest[open...].firstIndex(of: ">") {
            let target = rest[rest.index(after: open)..<close]
            let afterTarget = rest[rest.index(after: close)...]
            let parametersEnd = afterTarget.firstIndex(of: "<") ?? afterTarget.endIndex
            if Self.relations(in: afterTarget[..<parametersEnd]).contains("next") {
                return resolve(String(target))
            }
            rest = afterTarget[parametersEnd...]
        }
        return nil
    }

    /// The words of a link's `rel` parameter, lowercased.
    private static func relations(in parameters: Substring) -> [String] {
        for parameter in parameters.split(separator: ";") {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "rel" else {
                continue
            }
            let value = pair[1].trimmingCharacters(in: CharacterSet.whitespaces.union(["\"", ","]))
            return value.lowercased().split(separator: " ").map(String.init)
        }
        return []
    }

    /// Whether the body is a JSON array (its first character other than whitespace is `[`).
    var bodyIsJSONArray: Bool {
        body.first { ![0x20, 0x0A, 0x0D, 0x09].contains($0) } == UInt8(ascii: "[")
    }

    /// The first characters of the body as text, on one line, for error messages.
    public func bodyExcerpt(limit: Int = 160) -> String {
        let text = String(decoding: body.prefix(limit * 4), as: UTF8.self)
        let oneLine = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        if oneLine.isEmpty { return "(an empty body)" }
        guard oneLine.count > limit || body.count > limit * 4 else { return oneLine }
        return String(oneLine.prefix(limit)) + "…"
    }
}
