/// A point in a change feed's history (``ChangeFeedRepository``): the feed hands one out with
/// every page, and answers from it what changed after that page.
///
/// Opaque to its holder: keep it (it is `Codable`), send it back, never build one. A store
/// makes its own with ``init(_:)`` and reads it with ``token``; the token names the store
/// that issued it too, so a cursor given to another store (one rebuilt, restored from a
/// backup, or a different server) is refused as `cursorExpired` rather than misread.
public struct SyncCursor: Codable, Sendable, Hashable, CustomStringConvertible {
    /// The store's own text for the point.
    public let token: String

    /// A cursor holding `token`; for stores that make cursors.
    public init(_ token: String) {
        self.token = token
    }

    /// Encodes as the bare token, so a cursor travels as a plain string (in JSON, in a URL).
    public init(from decoder: any Decoder) throws {
        token = try decoder.singleValueContainer().decode(String.self)
    }

    /// Encodes the bare token.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(token)
    }

    /// The token.
    public var description: String { token }
}
