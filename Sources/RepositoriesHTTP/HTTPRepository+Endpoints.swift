import Foundation
import Repositories

extension HTTPRepository {
    /// The request each operation sends, as a function of the entity or ID and the
    /// ``Resource``.
    ///
    /// The defaults are plain REST. Change the ones your API does differently:
    ///
    /// ```swift
    /// var endpoints = HTTPRepository<Todo>.Endpoints()
    /// endpoints.save = { todo, resource in .post(resource.collection) }          // POST creates
    /// endpoints.fetchAll = { resource in
    ///     .get(resource.collection).adding(query: [URLQueryItem(name: "limit", value: "100")])
    /// }
    /// endpoints.saveBatch = { _, resource in .post(resource.appending("bulk")) } // atomic batches
    /// endpoints.deleteAll = { resource in .delete(resource.collection) }
    /// endpoints.create = { _, resource in .post(resource.appending("new")) }      // create(_:)
    /// ```
    ///
    /// A body, when the operation has one, is made by ``Coding``.
    public struct Endpoints: Sendable {
        /// Reads the collection's first page; the pages after it come from
        /// ``Coding/decodePage``. Default: `GET baseURL`.
        public var fetchAll: @Sendable (Resource) -> HTTPEndpoint
        /// Reads one entity; a `404` means there is none. Default: `GET baseURL/{id}`.
        public var fetch: @Sendable (ID, Resource) -> HTTPEndpoint
        /// Saves one entity, whose encoding is the body. Default: `PUT baseURL/{id}`.
        public var save: @Sendable (Entity, Resource) -> HTTPEndpoint
        /// Deletes one entity; a `404` counts as done. Default: `DELETE baseURL/{id}`.
        public var delete: @Sendable (ID, Resource) -> HTTPEndpoint
        /// Saves a whole batch in one request, whose body is ``Coding/encodeBatch``; with it a
        /// batch is as atomic as the server makes it. Default: `nil`, one ``save`` per entity.
        public var saveBatch: (@Sendable ([Entity], Resource) -> HTTPEndpoint)?
        /// Deletes the whole collection in one request; a `404` counts as done. Default:
        /// `nil`: read the collection, then delete each entity.
        public var deleteAll: (@Sendable (Resource) -> HTTPEndpoint)?
        /// Answers the number of entities, read by ``Coding/decodeCount``. Default: `nil`:
        /// count the collection read whole.
        public var count: (@Sendable (Resource) -> HTTPEndpoint)?
        /// Creates one entity whose final ID the server assigns (``HTTPRepository/create(_:)``),
        /// and the second request of ``HTTPSaveStrategy/putThenPostOnNotFound`` and the first of
        /// ``HTTPSaveStrategy/postThenPutOnConflict``. Default: `POST baseURL`.
        public var create: @Sendable (Entity, Resource) -> HTTPEndpoint
        /// Creates a batch in one request (``HTTPRepository/create(contentsOf:)``), whose body is
        /// ``Coding/encodeNewBatch`` and whose answer ``Coding/decodeBatch`` reads. Default:
        /// `nil`, one ``create`` per entity.
        public var createBatch: (@Sendable ([Entity], Resource) -> HTTPEndpoint)?
        /// Deletes several entities in one request (``HTTPRepository/delete(ids:)``); a `404`
        /// counts as done. Default: `nil`, one ``delete`` per ID.
        public var deleteBatch: (@Sendable ([ID], Resource) -> HTTPEndpoint)?
        /// The request a query's parameters are added to (``Configuration/queries``): its
        /// conditions, order and window. Default: `GET baseURL`.
        public var query: @Sendable (Resource) -> HTTPEndpoint

        /// The REST defaults: `GET` the collection, `GET`, `PUT` and `DELETE` an item, `POST`
        /// the collection to create.
        public init() {
            fetchAll = { .get($0.collection) }
            fetch = { id, resource in .get(resource.item(id)) }
            save = { entity, resource in .put(resource.item(entity.id)) }
            delete = { id, resource in .delete(resource.item(id)) }
            saveBatch = nil
            deleteAll = nil
            count = nil
            create = { _, resource in .post(resource.collection) }
            createBatch = nil
            deleteBatch = nil
            query = { .get($0.collection) }
        }
    }

    /// The URLs of one REST resource: the collection, and an item URL per ID.
    public struct Resource: Sendable {
        /// The collection's URL, the repository's `baseURL` (with a trailing slash added when
        /// ``trailingSlash`` is on).
        public let collection: URL
        /// Writes an ID as a path segment, before escaping (``Configuration/idPath``).
        public let pathSegment: @Sendable (ID) -> String
        /// Whether the URLs made from the collection end in `/`, as Django's do.
        public let trailingSlash: Bool

        /// The resource at `collection`, whose items are named by `pathSegment`; with
        /// `trailingSlash`, the collection's and every item's path end in `/`.
        public init(
            collection: URL, pathSegment: @escaping @Sendable (ID) -> String, trailingSlash: Bool = false
        ) {
            self.collection = trailingSlash ? Self.withTrailingSlash(collection) : collection
            self.pathSegment = pathSegment
            self.trailingSlash = trailingSlash
        }

        /// The item URL of `id`: the collection's path, then `id` as one escaped segment (and a
        /// `/` with ``trailingSlash``); the collection's query, if any, is kept.
        public func item(_ id: ID) -> URL {
            appending(segment(for: id))
        }

        /// The text that names `id` in a URL, before escaping: ``pathSegment`` in Unicode
        /// normalization form C, so two spellings Swift holds equal (`"caf\u{E9}"` and
        /// `"cafe\u{301}"`) name one resource. Use it in query filters too.
        public func segment(for id: ID) -> String {
            CanonicalText.canonical(pathSegment(id))
        }

        /// The collection's URL with `segment` appended as one path segment, escaped (a `/`
        /// in it becomes `%2F`), and a trailing `/` with ``trailingSlash``; the query, if any,
        /// is kept.
        public func appending(_ segment: String) -> URL {
            let escaped = Self.escape(segment) + (trailingSlash ? "/" : "")
            guard var components = URLComponents(url: collection, resolvingAgainstBaseURL: true) else {
                return collection.appendingPathComponent(segment)
            }
            var path = components.percentEncodedPath
            while path.hasSuffix("/") { path.removeLast() }
            components.percentEncodedPath = path + "/" + escaped
            return components.url ?? collection.appendingPathComponent(segment)
        }

        /// `url` with its path ending in one `/`.
        static func withTrailingSlash(_ url: URL) -> URL {
            guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true),
                !components.percentEncodedPath.hasSuffix("/")
            else { return url }
            components.percentEncodedPath += "/"
            return components.url ?? url
        }

        /// The default ``Configuration/idPath``: a `UUID`'s `uuidString`, a
        /// `LosslessStringConvertible`'s `description`, else the ID's JSON encoding,
        /// unquoted when it is a string.
        @Sendable public static func defaultPathSegment(_ id: ID) -> String {
            if let uuid = id as? UUID { return uuid.uuidString }
            if let text = id as? any LosslessStringConvertible { return text.description }
            guard let json = try? JSONEncoder().encode(id) else {
                // An ID that cannot be encoded cannot be sent either; its description at
                // least names it, and the save's own encoding reports the failure.
                return String(describing: id)
            }
            if let string = try? JSONDecoder().decode(String.self, from: json) { return string }
            return String(decoding: json, as: UTF8.self)
        }

        /// Escapes everything but RFC 3986's unreserved characters, and dots in a segment
        /// of only dots, which a client or server would otherwise read as `.` or `..`.
        static func escape(_ segment: String) -> String {
            if !segment.isEmpty && segment.allSatisfy({ $0 == "." }) {
                return String(repeating: "%2E", count: segment.count)
            }
            let unreserved = CharacterSet(
                charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
            return segment.addingPercentEncoding(withAllowedCharacters: unreserved) ?? segment
        }
    }
}
