import Foundation

/// An outbox record nests the entity it saves, its base, and the versions the remote may
/// hold; the outbox's migrations upgrade each of them (``Migrations/nested(in:)``).
enum OutboxRecordNesting<Entity: Codable & Identifiable & Sendable>: EntityNesting
where Entity.ID: Codable & Sendable {
    typealias Nested = OutboxRecord<Entity>
    typealias Erased = StoredChange<any Sendable, Entity.ID>

    static var valueName: String { "an outbox record" }

    static func shape<Shape: Decodable & Sendable>(around shape: Shape.Type) -> any MigrationShapeOpening {
        MigrationShape<StoredChange<Shape, Entity.ID>>()
    }

    static func decode<Shape: Decodable & Sendable>(
        _ shape: Shape.Type, from bytes: UnsafeRawBufferPointer, codec: EntityCodec
    ) throws -> Erased {
        try codec.decode(StoredChange<Shape, Entity.ID>.self, from: bytes).mapPayload { $0 as any Sendable }
    }

    static func decodeArray<Shape: Decodable & Sendable>(
        _ shape: Shape.Type, from data: Data, decoder: JSONDecoder
    ) throws -> [Erased] {
        try decoder.decode([StoredChange<Shape, Entity.ID>].self, from: data).map {
            $0.mapPayload { $0 as any Sendable }
        }
    }

    static func map(_ value: Erased, _ transform: (any Sendable) throws -> any Sendable) throws -> Erased {
        var upgraded = try value.mapPayload(transform)
        upgraded.baseUpgraded = upgraded.baseUpgraded || value.base != nil
        return upgraded
    }

    static func finish(_ value: Erased, _ cast: (any Sendable) throws -> Entity) throws -> Nested {
        try value.mapPayload(cast)
    }
}

/// A kept conflict nests four versions of the entity; the outbox's migrations upgrade each
/// of them, so a conflict settled before an app update still reads after it.
enum StoredConflictNesting<Entity: Codable & Identifiable & Sendable>: EntityNesting
where Entity.ID: Codable & Sendable {
    typealias Nested = StoredConflict<Entity, Entity.ID>
    typealias Erased = StoredConflict<any Sendable, Entity.ID>

    static var valueName: String { "a kept conflict" }

    static func shape<Shape: Decodable & Sendable>(around shape: Shape.Type) -> any MigrationShapeOpening {
        MigrationShape<StoredConflict<Shape, Entity.ID>>()
    }

    static func decode<Shape: Decodable & Sendable>(
        _ shape: Shape.Type, from bytes: UnsafeRawBufferPointer, codec: EntityCodec
    ) throws -> Erased {
        try codec.decode(StoredConflict<Shape, Entity.ID>.self, from: bytes).mapPayload { $0 as any Sendable }
    }

    static func decodeArray<Shape: Decodable & Sendable>(
        _ shape: Shape.Type, from data: Data, decoder: JSONDecoder
    ) throws -> [Erased] {
        try decoder.decode([StoredConflict<Shape, Entity.ID>].self, from: data).map {
            $0.mapPayload { $0 as any Sendable }
        }
    }

    static func map(_ value: Erased, _ transform: (any Sendable) throws -> any Sendable) throws -> Erased {
        try value.mapPayload(transform)
    }

    static func finish(_ value: Erased, _ cast: (any Sendable) throws -> Entity) throws -> Nested {
        try value.mapPayload(cast)
    }
}
