import Foundation

extension Outbox {
    /// The migrations of the outbox's records, made from the entity's: a record written by
    /// version *n* is decoded with version *n*'s shape for its entity and its base, and each
    /// upgrade of `migrations` is applied to both; the record's other fields are kept.
    ///
    /// - Throws: `rejected` when the chain of records is not a chain; it is one whenever
    ///   `migrations` is, so this would be a bug of this package.
    static func recordMigrations(_ migrations: Migrations<Entity>) throws -> Migrations<Record> {
        let last = migrations.upgrades.count - 1
        let upgrades = try migrations.upgrades.enumerated().map { position, upgrade in
            let erased = ObjectIdentifier(ErasedRecord.self)
            return Migrations<Record>.Upgrade(
                fromVersion: upgrade.fromVersion, oldType: erased,
                newType: position == last ? ObjectIdentifier(Record.self) : erased,
                oldTypeName: "an outbox record of \(upgrade.oldTypeName)",
                newTypeName: "an outbox record of \(upgrade.newTypeName)",
                oldShape: try upgrade.oldShape.open(RecordShape()),
                decode: { bytes, codec in
                    try upgrade.oldShape.open(RecordDecoding(bytes: bytes, codec: codec))
                },
                decodeArray: { data, decoder in
                    try upgrade.oldShape.open(RecordArrayDecoding(data: data, decoder: decoder))
                },
                convert: { value in
                    guard let record = value as? ErasedRecord else {
                        throw RepositoryError.rejected(
                            "The outbox's upgrade from version \(upgrade.fromVersion) was given \(type(of: value))"
                        )
                    }
                    let upgraded = try record.mapPayload { try upgrade.convert($0) }
                    guard position == last else { return upgraded }
                    return try upgraded.mapPayload { payload -> Entity in
                        guard let entity = payload as? Entity else {
                            throw RepositoryError.rejected(
                                "The last upgrade of \(Entity.self) returned \(type(of: payload))")
                        }
                        return entity
                    }
                })
        }
        return try Migrations<Record>(upgrades)
    }

    /// A record between two upgrades: its entity and base of the version reached so far.
    private typealias ErasedRecord = StoredChange<any Sendable, Entity.ID>

    /// The type a record of some version decodes as, around the shape its entity had.
    private struct RecordShape: MigrationShapeVisitor {
        func visit<Shape: Decodable & Sendable>(_ shape: Shape.Type) -> any MigrationShapeOpening {
            MigrationShape<StoredChange<Shape, Entity.ID>>()
        }
    }

    /// Decodes one record whose entity and base have the shape an upgrade reads.
    private struct RecordDecoding: MigrationShapeVisitor {
        let bytes: UnsafeRawBufferPointer
        let codec: EntityCodec

        func visit<Shape: Decodable & Sendable>(_ shape: Shape.Type) throws -> any Sendable {
            try codec.decode(StoredChange<Shape, Entity.ID>.self, from: bytes).mapPayload {
                $0 as any Sendable
            }
        }
    }

    /// Decodes an array of such records.
    private struct RecordArrayDecoding: MigrationShapeVisitor {
        let data: Data
        let decoder: JSONDecoder

        func visit<Shape: Decodable & Sendable>(_ shape: Shape.Type) throws -> [any Sendable] {
            try decoder.decode([StoredChange<Shape, Entity.ID>].self, from: data).map {
                $0.mapPayload { $0 as any Sendable }
            }
        }
    }
}
