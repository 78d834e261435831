import Foundation

extension HTTPRepository {
    /// One page of the collection, and where the next one is.
    public struct Page: Sendable {
        /// The entities on this page, in the server's order.
        public var entities: [Entity]
        /// The URL of the next page, or `nil` on the last.
        public var next: URL?

        /// A page of `entities`, followed by the page at `next`, if any.
        public init(entities: [Entity], next: URL? = nil) {
            self.entities = entities
            self.next = next
        }
    }

    /// How request bodies are encoded and replies decoded.
    ///
    /// The defaults read and write the entity's own JSON: an array for the collection, an
    /// object for an item, and follow a `Link: <…>; rel="next"` header to the next page.
    /// Coders are made per request, so their strategies are yours to set:
    ///
    /// ```swift
    /// let coding = HTTPRepository<Todo>.Coding(
    ///     makeEncoder: {
    ///         let encoder = JSONEncoder()
    ///         encoder.keyEncodingStrategy = .convertToSnakeCase
    ///         encoder.dateEncodingStrategy = .iso8601
    ///         return encoder
    ///     },
    ///     makeDecoder: {
    ///         let decoder = JSONDecoder()
    ///         decoder.keyDecodingStrategy = .convertFromSnakeCase
    ///         decoder.dateDecodingStrategy = .iso8601
    ///         return decoder
    ///     })
    /// ```
    ///
    /// For an API that wraps its answers, `{"data": [...], "next": "…"}`, use
    /// ``unwrapping(_:nextPageKey:)``; for anything else, set the hooks. An error a decoding
    /// hook throws becomes `decodingFailed` naming the URL and quoting the body, unless it is
    /// a `RepositoryError`, which is thrown as it is.
    public struct Coding: Sendable {
        /// Makes the encoder of one request; a new one each time, as for ``makeDecoder``.
        public var makeEncoder: @Sendable () -> JSONEncoder
        /// Makes the decoder of one reply. Return a new decoder each time: the hooks may
        /// set its `userInfo` (``unwrapping(_:nextPageKey:)`` does).
        public var makeDecoder: @Sendable () -> JSONDecoder
        /// The body of a save. Default: the entity's JSON.
        public var encodeEntity: @Sendable (Entity, JSONEncoder) throws -> Data
        /// The body of a bulk save (``Endpoints/saveBatch``). Default: a JSON array.
        public var encodeBatch: @Sendable ([Entity], JSONEncoder) throws -> Data
        /// Reads the entity from a `GET` of an item. Default: the body is the entity's JSON.
        public var decodeEntity: @Sendable (HTTPReply, JSONDecoder) throws -> Entity
        /// Reads a page of the collection, and where the next one is. Default: the body is a
        /// JSON array; the next page is the `Link` header's `rel="next"`.
        public var decodePage: @Sendable (HTTPReply, JSONDecoder) throws -> Page
        /// Reads the answer of ``Endpoints/count``. Default: an `X-Total-Count` header, else a
        /// body that is a number or an object with a `count` number.
        public var decodeCount: @Sendable (HTTPReply, JSONDecoder) throws -> Int

        /// Plain JSON with coders made by `makeEncoder` and `makeDecoder`.
        public init(
            makeEncoder: @escaping @Sendable () -> JSONEncoder = { JSONEncoder() },
            makeDecoder: @escaping @Sendable () -> JSONDecoder = { JSONDecoder() }
        ) {
            self.makeEncoder = makeEncoder
            self.makeDecoder = makeDecoder
            encodeEntity = { entity, encoder in try encoder.encode(entity) }
            encodeBatch = { entities, encoder in try encoder.encode(entities) }
            decodeEntity = { reply, decoder in try decoder.decode(Entity.self, from: reply.body) }
            decodePage = { reply, decoder in
                Page(entities: try decoder.decode([Entity].self, from: reply.body), next: reply.nextPageLink)
            }
            decodeCount = { reply, decoder in
                if let header = reply.header("X-Total-Count"), let count = Int(header) { return count }
                if let count = try? decoder.decode(Int.self, from: reply.body) { return count }
                return try decoder.decode(CountObject.self, from: reply.body).count
            }
        }

        /// A copy that reads each reply from under `key`: an item as `{"<key>": {...}}`, a
        /// page as `{"<key>": [...]}`, with the next page's URL (absolute or relative) under
        /// `nextPageKey` when given, else in the `Link` header.
        ///
        /// Name the keys as they read after the decoder's key strategy.
        public func unwrapping(_ key: String, nextPageKey: String? = nil) -> Coding {
            var copy = self
            copy.decodeEntity = { reply, decoder in
                try Envelope<Entity>.open(reply.body, key: key, nextKey: nil, with: decoder).value
            }
            copy.decodePage = { reply, decoder in
                let envelope = try Envelope<[Entity]>.open(
                    reply.body, key: key, nextKey: nextPageKey, with: decoder)
                let next = envelope.next.flatMap(reply.resolve) ?? reply.nextPageLink
                return Page(entities: envelope.value, next: next)
            }
            return copy
        }

        /// A copy that sends each body under `key`: a save as `{"<key>": {...}}`, a bulk
        /// save as `{"<key>": [...]}`.
        public func wrappingRequests(in key: String) -> Coding {
            var copy = self
            copy.encodeEntity = { entity, encoder in try encoder.encode([key: entity]) }
            copy.encodeBatch = { entities, encoder in try encoder.encode([key: entities]) }
            return copy
        }
    }
}

/// `{"count": 3}`.
private struct CountObject: Decodable {
    var count: Int
}

/// A value under a key named at run time, and an optional next-page reference beside it.
private struct Envelope<Value: Decodable>: Decodable {
    var value: Value
    var next: String?

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    private static var keyInfo: CodingUserInfoKey? {
        CodingUserInfoKey(rawValue: "RepositoriesHTTP.envelope")
    }
    private static var nextKeyInfo: CodingUserInfoKey? {
        CodingUserInfoKey(rawValue: "RepositoriesHTTP.envelope.next")
    }

    /// Decodes `body` as an object holding the value under `key`.
    static func open(_ body: Data, key: String, nextKey: String?, with decoder: JSONDecoder) throws
        -> Envelope
    {
        guard let keyInfo, let nextKeyInfo else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: [], debugDescription: "No user-info key for the envelope"))
        }
        decoder.userInfo[keyInfo] = key
        decoder.userInfo[nextKeyInfo] = nextKey
        return try decoder.decode(Envelope.self, from: body)
    }

    init(from decoder: any Decoder) throws {
        guard let keyInfo = Self.keyInfo, let key = decoder.userInfo[keyInfo] as? String else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: [], debugDescription: "The envelope's key was not given"))
        }
        let container = try decoder.container(keyedBy: Key.self)
        value = try container.decode(Value.self, forKey: Key(stringValue: key))
        if let nextKeyInfo = Self.nextKeyInfo, let nextKey = decoder.userInfo[nextKeyInfo] as? String {
            next = try container.decodeIfPresent(String.self, forKey: Key(stringValue: nextKey))
        }
    }
}
