import Foundation
import Repositories

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
    /// object for an item, dates as ISO 8601 (`2024-05-01T09:30:00Z`; fractional seconds and
    /// offsets such as `+02:00` are read too), and follow a `Link: <…>; rel="next"` header to
    /// the next page. Coders are made per request, so their strategies are yours to set:
    ///
    /// ```swift
    /// configuration.coding = configuration.coding.convertingKeysToSnakeCase()   // list_name ⇄ listName
    /// configuration.coding = HTTPRepository<Todo>.Coding(
    ///     makeEncoder: { let encoder = JSONEncoder(); encoder.dateEncodingStrategy = .secondsSince1970; return encoder },
    ///     makeDecoder: { let decoder = JSONDecoder(); decoder.dateDecodingStrategy = .secondsSince1970; return decoder })
    /// ```
    ///
    /// For an API that wraps its lists, `{"results": [...], "next": "…", "count": 42}`, use
    /// ``unwrappingLists(_:nextPageKey:)``; one that wraps its items, `{"note": {...}}`,
    /// ``unwrappingItems(_:)``; for anything else, set the hooks. An error a decoding hook
    /// throws becomes `decodingFailed` naming the URL and quoting the body, unless it is a
    /// `RepositoryError`, which is thrown as it is (a `notFound` from ``decodeEntity`` makes
    /// ``HTTPRepository/fetch(id:)`` return `nil`, for APIs that answer an absent item with an
    /// empty list).
    public struct Coding: Sendable {
        /// Makes the encoder of one request; a new one each time, as for ``makeDecoder``.
        public var makeEncoder: @Sendable () -> JSONEncoder
        /// Makes the decoder of one reply. Return a new decoder each time: the hooks may
        /// set its `userInfo` (``unwrappingLists(_:nextPageKey:)`` does).
        public var makeDecoder: @Sendable () -> JSONDecoder
        /// The body of a save. Default: the entity's JSON.
        public var encodeEntity: @Sendable (Entity, JSONEncoder) throws -> Data
        /// The body of a bulk save (``Endpoints/saveBatch``). Default: a JSON array.
        public var encodeBatch: @Sendable ([Entity], JSONEncoder) throws -> Data
        /// The body of ``HTTPRepository/create(_:)``, an entity without its final ID. Default:
        /// the entity's JSON; ``omittingOnCreate(_:)`` leaves the ID out.
        public var encodeNew: @Sendable (Entity, JSONEncoder) throws -> Data
        /// The body of a bulk create (``Endpoints/createBatch``). Default: a JSON array of what
        /// ``encodeNew`` writes.
        public var encodeNewBatch: @Sendable ([Entity], JSONEncoder) throws -> Data
        /// Reads the entity from a `GET` of an item, and from the answer to a create. Default:
        /// the body is the entity's JSON.
        public var decodeEntity: @Sendable (HTTPReply, JSONDecoder) throws -> Entity
        /// Reads the entities a bulk create answered (``Endpoints/createBatch``). Default: the
        /// body is a JSON array.
        public var decodeBatch: @Sendable (HTTPReply, JSONDecoder) throws -> [Entity]
        /// Reads a page of the collection, and where the next one is. Default: the body is a
        /// JSON array; the next page is the `Link` header's `rel="next"`.
        public var decodePage: @Sendable (HTTPReply, JSONDecoder) throws -> Page
        /// Reads the answer of ``Endpoints/count``. Default: an `X-Total-Count` header, else a
        /// `Content-Range` header's total (`0-24/3573`, `*/0`), else a body that is a number or
        /// an object with a `count` or `total` number (`{"count": 42, "results": [...]}`).
        public var decodeCount: @Sendable (HTTPReply, JSONDecoder) throws -> Int

        /// Plain JSON with coders made by `makeEncoder` and `makeDecoder`; by default dates
        /// are ISO 8601 and keys are the properties' names.
        public init(
            makeEncoder: @escaping @Sendable () -> JSONEncoder = Coding.iso8601Encoder,
            makeDecoder: @escaping @Sendable () -> JSONDecoder = Coding.iso8601Decoder
        ) {
            self.makeEncoder = makeEncoder
            self.makeDecoder = makeDecoder
            encodeEntity = { entity, encoder in try encoder.encode(entity) }
            encodeBatch = { entities, encoder in try encoder.encode(entities) }
            encodeNew = { entity, encoder in try encoder.encode(entity) }
            encodeNewBatch = { entities, encoder in try encoder.encode(entities) }
            decodeEntity = { reply, decoder in try decoder.decode(Entity.self, from: reply.body) }
            decodeBatch = { reply, decoder in try decoder.decode([Entity].self, from: reply.body) }
            decodePage = { reply, decoder in
                Page(entities: try decoder.decode([Entity].self, from: reply.body), next: reply.nextPageLink)
            }
            decodeCount = { reply, decoder in try Self.readCount(reply, decoder) }
        }

        /// A `JSONEncoder` that writes dates as ISO 8601 in UTC, with the fraction of a second
        /// (to the microsecond) when there is one: the default.
        ///
        /// A date RFC 3339 cannot write (not finite, or outside the years 0000 to 9999) throws
        /// `EncodingError.invalidValue` at its coding path, so nothing is sent; the server and
        /// the next read could not take it back.
        @Sendable public static func iso8601Encoder() -> JSONEncoder {
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = InternetDate.encodingStrategy(.microseconds)
            return encoder
        }

        /// A `JSONDecoder` that reads ISO 8601 dates with or without a fraction of a second,
        /// in UTC (`Z`) or with an offset (`+02:00`), or a plain date (`2024-05-01`, midnight
        /// UTC): the default.
        @Sendable public static func iso8601Decoder() -> JSONDecoder {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = InternetDate.decodingStrategy
            return decoder
        }

        /// A copy whose coders convert keys: `listName` is sent as `list_name`, and
        /// `list_name` read as `listName`, the convention of Python and Ruby back-ends.
        ///
        /// Keys named in ``unwrappingLists(_:nextPageKey:)`` and the like are then matched
        /// after conversion (`next_page` as `nextPage`).
        public func convertingKeysToSnakeCase() -> Coding {
            var copy = self
            let makeEncoder = self.makeEncoder
            let makeDecoder = self.makeDecoder
            copy.makeEncoder = {
                let encoder = makeEncoder()
                encoder.keyEncodingStrategy = .convertToSnakeCase
                return encoder
            }
            copy.makeDecoder = {
                let decoder = makeDecoder()
                decoder.keyDecodingStrategy = .convertFromSnakeCase
                return decoder
            }
            return copy
        }

        /// A copy that reads each reply from under `key`: an item as `{"<key>": {...}}` and a
        /// page as `{"<key>": [...]}`, with the next page's URL under `nextPageKey`. For APIs
        /// that wrap both; most wrap only lists (``unwrappingLists(_:nextPageKey:)``).
        ///
        /// Name the keys as they read after the decoder's key strategy.
        public func unwrapping(_ key: String, nextPageKey: String? = nil) -> Coding {
            unwrappingLists(key, nextPageKey: nextPageKey).unwrappingItems(key)
        }

        /// A copy that reads each page from under `key`, `{"<key>": [...], "next": "…"}`, with
        /// the next page's URL (absolute or relative) under `nextPageKey` when given, else in
        /// the `Link` header. Items and creates are still read as plain objects: Django REST
        /// Framework's pagination (`unwrappingLists("results", nextPageKey: "next")`) and most
        /// others wrap lists only.
        ///
        /// Name the keys as they read after the decoder's key strategy.
        public func unwrappingLists(_ key: String, nextPageKey: String? = nil) -> Coding {
            var copy = self
            copy.decodePage = { reply, decoder in
                if reply.bodyIsJSONArray {
                    // An API without pagination answers the bare list.
                    return Page(
                        entities: try decoder.decode([Entity].self, from: reply.body),
                        next: reply.nextPageLink)
                }
                let envelope = try Envelope<[Entity]>.open(
                    reply.body, key: key, nextKey: nextPageKey, with: decoder)
                let next = envelope.next.flatMap(reply.resolve) ?? reply.nextPageLink
                return Page(entities: envelope.value, next: next)
            }
            return copy
        }

        /// A copy that reads each item, and each created entity, from under `key`:
        /// `{"<key>": {...}}`, as Rails apps with a root key answer.
        ///
        /// Name the key as it reads after the decoder's key strategy.
        public func unwrappingItems(_ key: String) -> Coding {
            var copy = self
            copy.decodeEntity = { reply, decoder in
                try Envelope<Entity>.open(reply.body, key: key, nextKey: nil, with: decoder).value
            }
            return copy
        }

        /// A copy that sends each body under `key`: a save and a create as
        /// `{"<key>": {...}}`, a bulk save or create as `{"<key>": [...]}` (Rails' strong
        /// parameters, `params.require(:note)`).
        public func wrappingRequests(in key: String) -> Coding {
            var copy = self
            let encodeNew = self.encodeNew
            copy.encodeEntity = { entity, encoder in try encoder.encode([key: entity]) }
            copy.encodeBatch = { entities, encoder in try encoder.encode([key: entities]) }
            copy.encodeNew = { entity, encoder in try Self.wrap(encodeNew(entity, encoder), in: key) }
            let encodeNewBatch = self.encodeNewBatch
            copy.encodeNewBatch = { entities, encoder in
                try Self.wrap(encodeNewBatch(entities, encoder), in: key)
            }
            return copy
        }

        /// A copy whose creates (``HTTPRepository/create(_:)``, ``HTTPRepository/create(contentsOf:)``)
        /// leave the top-level `keys` out of the body, so a server that assigns IDs is not sent
        /// a placeholder (json-server, for one, would keep an `"id": 0`). Saves still send them.
        ///
        /// Apply it before ``wrappingRequests(in:)``. Name the keys as they are written, after
        /// the encoder's key strategy.
        public func omittingOnCreate(_ keys: Set<String> = ["id"]) -> Coding {
            var copy = self
            let encodeEntity = self.encodeEntity
            copy.encodeNew = { entity, encoder in try Self.removing(keys, from: encodeEntity(entity, encoder))
            }
            copy.encodeNewBatch = { entities, encoder in
                let objects = try entities.map { try Self.removing(keys, from: encodeEntity($0, encoder)) }
                return Data("[".utf8) + objects.joined(separator: Data(",".utf8)) + Data("]".utf8)
            }
            return copy
        }

        /// `json` (an object) without the top-level `keys`.
        static func removing(_ keys: Set<String>, from json: Data) throws -> Data {
            guard var object = try JSONSerialization.jsonObject(with: json) as? [String: Any] else {
                throw EncodingError.invalidValue(
                    json,
                    EncodingError.Context(
                        codingPath: [], debugDescription: "The entity is not encoded as a JSON object"))
            }
            for key in keys { object[key] = nil }
            return try JSONSerialization.data(withJSONObject: object, options: [.withoutEscapingSlashes])
        }

        /// `{"<key>": <json>}`.
        static func wrap(_ json: Data, in key: String) throws -> Data {
            let name = try JSONEncoder().encode(key)
            return Data("{".utf8) + name + Data(":".utf8) + json + Data("}".utf8)
        }

        /// The default ``decodeCount``.
        static func readCount(_ reply: HTTPReply, _ decoder: JSONDecoder) throws -> Int {
            if let header = reply.header("X-Total-Count"), let count = Int(header) { return count }
            if let range = reply.header("Content-Range"), let slash = range.lastIndex(of: "/"),
                let count = Int(range[range.index(after: slash)...].trimmingCharacters(in: .whitespaces))
            {
                return count
            }
            if reply.bodyIsJSONArray { return try decoder.decode([JSONValue].self, from: reply.body).count }
            if let count = try? decoder.decode(Int.self, from: reply.body) { return count }  // else an object
            let object = try decoder.decode(CountObject.self, from: reply.body)
            guard let count = object.count ?? object.total else {
                throw DecodingError.dataCorrupted(
                    DecodingError.Context(
                        codingPath: [],
                        debugDescription:
                            "No count: no X-Total-Count or Content-Range total, no count or total key"))
            }
            return count
        }
    }
}

/// Any JSON value, skipped over: to count the elements of an array.
private struct JSONValue: Decodable {
    init(from decoder: any Decoder) throws {}
}

/// `{"count": 3}` or `{"total": 3}`.
private struct CountObject: Decodable {
    var count: Int?
    var total: Int?
}

/// A value under a key named at run time, and an optional next-page reference beside it.
private struct Envelope<Value: Decodable>: Decodable {
    var value: Value
    var next: String?

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
        let container = try decoder.container(keyedBy: NamedCodingKey.self)
        value = try container.decode(Value.self, forKey: NamedCodingKey(stringValue: key))
        if let nextKeyInfo = Self.nextKeyInfo, let nextKey = decoder.userInfo[nextKeyInfo] as? String {
            next = try container.decodeIfPresent(String.self, forKey: NamedCodingKey(stringValue: nextKey))
        }
    }
}
