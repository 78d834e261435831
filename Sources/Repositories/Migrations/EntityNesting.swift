import Foundation

/// A stored value that nests versions of an entity, as an outbox record nests the entity
/// and its base and a kept conflict nests four versions: a store of such values is upgraded
/// by the entity's migrations (``Migrations/nested(in:)``), each nested version going
/// through every upgrade while the value's other fields are kept.
///
/// Swift cannot name "the same stored value around another shape" in a generic signature,
/// so a nesting says it with generic functions: its value around a given shape, decoded,
/// and the value's erased form between two upgrades.
protocol EntityNesting: SendableMetatype {
    /// The entity nested.
    associatedtype Entity: Decodable & Sendable
    /// The stored value around the entity's current version.
    associatedtype Nested: Decodable & Sendable
    /// The stored value between two upgrades, around the versions reached so far.
    associatedtype Erased: Sendable

    /// What one value is, for messages: "an outbox record".
    static var valueName: String { get }
    /// The value around `Shape`, kept for a store that decodes it itself.
    static func shape<Shape: Decodable & Sendable>(around shape: Shape.Type) -> any MigrationShapeOpening
    /// Decodes one value whose nested versions have the shape `Shape`.
    static func decode<Shape: Decodable & Sendable>(
        _ shape: Shape.Type, from bytes: UnsafeRawBufferPointer, codec: EntityCodec
    ) throws -> Erased
    /// Decodes an array of such values.
    static func decodeArray<Shape: Decodable & Sendable>(
        _ shape: Shape.Type, from data: Data, decoder: JSONDecoder
    ) throws -> [Erased]
    /// `value` with each nested version passed through `transform`.
    static func map(_ value: Erased, _ transform: (any Sendable) throws -> any Sendable) throws -> Erased
    /// `value` with each nested version cast to the entity by `cast`.
    static func finish(_ value: Erased, _ cast: (any Sendable) throws -> Entity) throws -> Nested
}

extension Migrations {
    /// The migrations of a store of values that nest this entity, made from the entity's:
    /// a value written by version *n* is decoded with version *n*'s shape for every nested
    /// version, and each upgrade is applied to each of them.
    ///
    /// - Throws: `rejected` when the chain made is not a chain; it is one whenever this one
    ///   is, so that would be a bug of this package.
    func nested<Nesting: EntityNesting>(in nesting: Nesting.Type) throws -> Migrations<Nesting.Nested>
    where Nesting.Entity == Entity {
        let last = upgrades.count - 1
        let converted = try upgrades.enumerated().map { position, upgrade in
            let erased = ObjectIdentifier(Nesting.Erased.self)
            return Migrations<Nesting.Nested>.Upgrade(
                fromVersion: upgrade.fromVersion, oldType: erased,
                newType: position == last ? ObjectIdentifier(Nesting.Nested.self) : erased,
                oldTypeName: "\(Nesting.valueName) of \(upgrade.oldTypeName)",
                newTypeName: "\(Nesting.valueName) of \(upgrade.newTypeName)",
                oldShape: try upgrade.oldShape.open(NestedShape<Nesting>()),
                decode: { bytes, codec in
                    try upgrade.oldShape.open(NestedDecoding<Nesting>(bytes: bytes, codec: codec))
                },
                decodeArray: { data, decoder in
                    try upgrade.oldShape.open(NestedArrayDecoding<Nesting>(data: data, decoder: decoder))
                },
                convert: { value in
                    guard let stored = value as? Nesting.Erased else {
                        throw RepositoryError.rejected(
                            "The upgrade of \(Nesting.valueName) from version \(upgrade.fromVersion) was given "
                                + "\(type(of: value))")
                    }
                    let upgraded = try Nesting.map(stored) { try upgrade.convert($0) }
                    guard position == last else { return upgraded }
                    return try Nesting.finish(upgraded) { payload in
                        guard let entity = payload as? Entity else {
                            throw RepositoryError.rejected(
                                "The last upgrade of \(Entity.self) returned \(type(of: payload))")
                        }
                        return entity
                    }
                })
        }
        return try Migrations<Nesting.Nested>(converted)
    }
}

/// The type a stored value of some version decodes as, around the shape its entity had.
private struct NestedShape<Nesting: EntityNesting>: MigrationShapeVisitor {
    func visit<Shape: Decodable & Sendable>(_ shape: Shape.Type) -> any MigrationShapeOpening {
        Nesting.shape(around: shape)
    }
}

/// Decodes one stored value whose nested versions have the shape an upgrade reads.
private struct NestedDecoding<Nesting: EntityNesting>: MigrationShapeVisitor {
    let bytes: UnsafeRawBufferPointer
    let codec: EntityCodec

    func visit<Shape: Decodable & Sendable>(_ shape: Shape.Type) throws -> any Sendable {
        try Nesting.decode(shape, from: bytes, codec: codec)
    }
}

/// Decodes an array of such values.
private struct NestedArrayDecoding<Nesting: EntityNesting>: MigrationShapeVisitor {
    let data: Data
    let decoder: JSONDecoder

    func visit<Shape: Decodable & Sendable>(_ shape: Shape.Type) throws -> [any Sendable] {
        try Nesting.decodeArray(shape, from: data, decoder: decoder)
    }
}
