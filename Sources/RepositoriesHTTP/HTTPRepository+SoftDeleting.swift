import Foundation

extension HTTPRepository.Configuration {
    /// Makes a ``postgREST(apiKey:primaryKey:order:pageSize:tokenProvider:codePointTextOrder:)`` configuration
    /// soft-delete: a deleted row stays, with `column` set to `true`, so a change feed
    /// (``HTTPRepository/ChangeFeed/postgREST(updatedAt:deleted:primaryKey:lag:retention:)``)
    /// can hand the deletion to every device.
    ///
    /// ```swift
    /// var configuration = HTTPRepository<Note>.Configuration.postgREST(apiKey: anonKey)
    /// configuration.softDeleting(column: "deleted")
    /// ```
    ///
    /// - `fetch(id:)`, `fetchAll()`, `count()` and queries read only rows not deleted
    ///   (`&deleted=is.false` after their filters).
    /// - `delete(id:)`, `delete(ids:)` and `deleteAll()` send `PATCH` with `{"deleted": true}`
    ///   to the filter the `DELETE` had, narrowed to rows not deleted yet (a row deleted twice
    ///   keeps the time of its first deletion).
    /// - Saves send `"deleted": false` after the entity's own fields, so an ID deleted and
    ///   saved again comes back; the entity need not have the column.
    ///
    /// A create of an ID whose row is soft-deleted (`saveIfAbsent(_:)`, which an offline-first
    /// sync sends for an entity it creates) is an insert, which the row still there refuses,
    /// unless the table lets it in: Docs/HTTP.md's table does so with a trigger that removes
    /// the deleted row first.
    ///
    /// Call it once, after the preset; the filters are PostgREST's.
    ///
    /// - Parameter column: the soft-delete column (`boolean not null default false`).
    public mutating func softDeleting(column: String = "deleted") {
        let notDeleted: @Sendable (HTTPEndpoint) -> HTTPEndpoint = { endpoint in
            var copy = endpoint
            copy.url = PostgREST.filter(endpoint.url, column, "is.false")
            return copy
        }
        let marked = Self.object(column, true)
        let markDeleted: @Sendable (HTTPEndpoint) -> HTTPEndpoint = { endpoint in
            var copy = notDeleted(endpoint)
            copy.method = "PATCH"
            copy.body = marked
            return copy
        }
        let (fetch, fetchAll, count, query) = (
            endpoints.fetch, endpoints.fetchAll, endpoints.count, endpoints.query
        )
        endpoints.fetch = { id, resource in notDeleted(fetch(id, resource)) }
        endpoints.fetchAll = { resource in notDeleted(fetchAll(resource)) }
        endpoints.query = { resource in notDeleted(query(resource)) }
        if let count { endpoints.count = { resource in notDeleted(count(resource)) } }
        let (delete, deleteBatch, deleteAll) = (endpoints.delete, endpoints.deleteBatch, endpoints.deleteAll)
        endpoints.delete = { id, resource in markDeleted(delete(id, resource)) }
        if let deleteBatch {
            endpoints.deleteBatch = { ids, resource in markDeleted(deleteBatch(ids, resource)) }
        }
        if let deleteAll { endpoints.deleteAll = { resource in markDeleted(deleteAll(resource)) } }

        let encodeEntity = coding.encodeEntity
        let restored = Self.member(column, false)
        coding.encodeEntity = { entity, encoder in
            try Self.appending(restored, to: encodeEntity(entity, encoder))
        }
        coding.encodeBatch = { entities, encoder in
            let objects = try entities.map { try Self.appending(restored, to: encodeEntity($0, encoder)) }
            return Data("[".utf8) + objects.joined(separator: Data(",".utf8)) + Data("]".utf8)
        }
    }

    /// `"<name>":<value>`, the name's quotes, backslashes and control characters escaped.
    private static func member(_ name: String, _ value: Bool) -> Data {
        var quoted = "\""
        for scalar in name.unicodeScalars {
            switch scalar {
            case "\"", "\\": quoted += "\\" + String(scalar)
            case _ where scalar.value < 0x20: quoted += String(format: "\\u%04x", scalar.value)
            default: quoted.unicodeScalars.append(scalar)
            }
        }
        return Data((quoted + "\":\(value)").utf8)
    }

    /// `{"<name>":<value>}`.
    private static func object(_ name: String, _ value: Bool) -> Data {
        Data("{".utf8) + member(name, value) + Data("}".utf8)
    }

    /// `object` (an encoded JSON object) with `member` added last, so it is the value the
    /// server takes should the entity encode that name too.
    ///
    /// - Throws: `EncodingError.invalidValue` when `object` is not a JSON object.
    private static func appending(_ member: Data, to object: Data) throws -> Data {
        let whitespace: Set<UInt8> = [0x20, 0x0A, 0x0D, 0x09]
        guard let first = object.firstIndex(where: { !whitespace.contains($0) }),
            let last = object.lastIndex(where: { !whitespace.contains($0) }),
            object[first] == UInt8(ascii: "{"), object[last] == UInt8(ascii: "}")
        else {
            throw EncodingError.invalidValue(
                object,
                EncodingError.Context(
                    codingPath: [],
                    debugDescription: "The entity is not encoded as a JSON object, so no column can be added")
            )
        }
        let inner = object[object.index(after: first)..<last]
        let empty = inner.allSatisfy { whitespace.contains($0) }
        return Data("{".utf8) + inner + (empty ? Data() : Data(",".utf8)) + member + Data("}".utf8)
    }
}
