import Foundation
import Repositories

/// Values a request cannot carry are refused before anything is sent: an ID that names no
/// single resource (its item URL would address the collection, its parent or another path),
/// and an entity that does not encode (a date RFC 3339 cannot write, say), named down to the
/// field.
extension HTTPRepository {
    /// Throws `rejected` for the first of `ids` that names no single resource, before
    /// anything is sent (see ``Resource/problem(with:)``).
    func requireAddressable(_ ids: some Sequence<ID>, operation: String) throws {
        for id in ids { try requireAddressable(id, operation: operation) }
    }

    /// Throws `rejected` when `id` names no single resource, before anything is sent.
    func requireAddressable(_ id: ID, operation: String) throws {
        let segment = resource.segment(for: id)
        guard let problem = Resource.problem(with: segment) else { return }
        let name = describe(id)
        throw RepositoryError(
            .rejected,
            reason:
                "\(operation) refused the ID \(Self.quoted(name))"
                + (segment == name ? "" : " (path segment \(Self.quoted(segment)))")
                + ", which names no single resource of \(resource.collection.absoluteString): \(problem). "
                + "Nothing was sent",
            recovery:
                "Give the entity an ID that is not empty, not . or .., and has no . or .. between slashes "
                + "(a UUID, say); for an ID the server assigns, use create(_:)",
            id: name, underlying: RefusedBeforeSending())
    }

    /// Whether ``Endpoints/create`` sends `entity` to the URL its ID names (a client-chosen
    /// ID created with `PUT`), so a create needs that ID to name one resource. A create that
    /// posts to the collection does not: the server names the entity, and a placeholder ID
    /// (`""`, `0`) is fine.
    func createAddressesItem(_ entity: Entity) -> Bool {
        let url = configuration.endpoints.create(entity, resource).url
        return url == resource.item(entity.id)
            || url == configuration.endpoints.fetch(entity.id, resource).url
    }

    /// ``encode(_:)``, with the field that could not be encoded, and the entity's ID, in the
    /// error's reason: the reason is what an offline-first outbox keeps of a rejected change.
    ///
    /// - Throws: `encodingFailed` naming the entity and the field.
    func encodeForSending(_ entity: Entity) throws -> Data {
        do {
            return try encode(entity)
        } catch let error as RepositoryError where error.code == .encodingFailed {
            throw naming(error, of: entity)
        }
    }

    /// `error`, an `encodingFailed` of `entity`, with a reason that names the entity's ID and,
    /// when the encoder said, the field and what was wrong with it.
    func naming(_ error: RepositoryError, of entity: Entity) -> RepositoryError {
        var named = error
        let id = describe(entity.id)
        named.id = id
        guard case .invalidValue(_, let context) = error.underlying as? EncodingError else {
            named.reason = "The entity \(Self.quoted(id)) could not be encoded, so nothing was sent"
            return named
        }
        let field = Self.path(context.codingPath)
        named.reason =
            "The entity \(Self.quoted(id)) could not be encoded"
            + (field.isEmpty ? "" : " at its field \(field)")
            + ": \(context.debugDescription). Nothing was sent"
        named.recovery =
            "Fix the value of \(field.isEmpty ? "the entity" : field), then save the entity again"
        return named
    }

    /// The entity of `entities` that fails to encode on its own with `encodeOne`, with its
    /// error named; `fallback` (the batch's own error) when each encodes on its own.
    func firstEncodingFailure(
        in entities: [Entity], fallback: RepositoryError, _ encodeOne: (Entity) throws -> Data
    ) -> RepositoryError {
        for entity in entities {
            do {
                _ = try encodeOne(entity)
            } catch let error as RepositoryError {
                return naming(error, of: entity)
            } catch {
                return naming(
                    RepositoryError.encodingFailed(id: describe(entity.id), underlying: error), of: entity)
            }
        }
        return fallback
    }

    /// `dueDate`, `items[2].dueDate`: a coding path as a Swift reader writes it.
    static func path(_ codingPath: [any CodingKey]) -> String {
        var text = ""
        for key in codingPath {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += (text.isEmpty ? "" : ".") + key.stringValue
            }
        }
        return text
    }

    /// `text` in double quotes, so an empty ID still shows.
    static func quoted(_ text: String) -> String {
        "\"" + text + "\""
    }
}

extension HTTPRepository.Resource {
    /// Why `segment`, an ID's path segment before escaping, names no single resource, or
    /// `nil` when it names one.
    ///
    /// An empty segment addresses the collection itself; `.` and `..` (sent as `%2E`) are read
    /// as the collection or its parent by a client, proxy or server that decodes unreserved
    /// characters, as RFC 3986 allows; and a server that decodes `%2F` (or `%5C`) before
    /// routing splits the segment, so a `.` or `..` between slashes, or nothing but slashes,
    /// reaches another path.
    static func problem(with segment: String) -> String? {
        if segment.isEmpty { return "an empty path segment addresses the collection itself" }
        if segment == "." || segment == ".." {
            return "the dot segment \(segment) is read as the collection or its parent"
        }
        let parts = segment.split(omittingEmptySubsequences: false) { $0 == "/" || $0 == "\\" }
        if parts.count > 1 {
            if parts.allSatisfy(\.isEmpty) {
                return "nothing but slashes, which a server that decodes %2F reads as the collection itself"
            }
            if let dots = parts.first(where: { $0 == "." || $0 == ".." }) {
                return "a server that decodes %2F or %5C reads its dot segment \(dots) as another path"
            }
        }
        return nil
    }
}
