import Foundation
import Repositories

/// An entity with a `String` ID, for running the conformance suite on author entities.
public struct Note: Identifiable, Codable, Sendable, Equatable {
    /// A string ID with a non-ASCII character.
    public var id: String
    /// Content that changes with the revision.
    public var text: String
    /// `nil`, except in ``unencodable(index:)``: a number JSON cannot hold.
    public var rating: Double? = nil

    /// The note for `index` at `revision`.
    public static func make(index: Int, revision: Int) -> Note {
        Note(id: "note-\(index)-ü", text: "revision \(revision) of note \(index)")
    }

    /// A note for `index` that no JSON encoder can encode (its rating is not finite).
    public static func unencodable(index: Int) -> Note {
        var note = make(index: index, revision: 9_999)
        note.rating = .nan
        return note
    }
}

/// An entity with a `UUID` ID derived from its index.
public struct Ticket: Identifiable, Codable, Sendable, Equatable {
    /// A UUID made from the index.
    public var id: UUID
    /// Content that changes with the revision.
    public var seat: Int
    /// An optional that is `nil` on even revisions.
    public var holder: String?
    /// `nil`, except in ``unencodable(index:)``: a number JSON cannot hold.
    public var price: Double? = nil

    /// The ticket for `index` at `revision`.
    public static func make(index: Int, revision: Int) -> Ticket {
        let hex = String(index, radix: 16)
        let padded = String(repeating: "0", count: 12 - hex.count) + hex
        return Ticket(
            id: UUID(uuidString: "00000000-0000-4000-8000-\(padded)")!, seat: revision,
            holder: revision % 2 == 0 ? nil : "holder \(revision)")
    }

    /// A ticket for `index` that no JSON encoder can encode (its price is not finite).
    public static func unencodable(index: Int) -> Ticket {
        var ticket = make(index: index, revision: 9_999)
        ticket.price = .infinity
        return ticket
    }
}

/// The entity the crash fixture writes: its content follows from its ID, so a reader can
/// check what it got back.
public struct FixtureEntity: Codable, Identifiable, Sendable, Equatable {
    /// The ID.
    public var id: Int
    /// A short text with a non-ASCII character.
    public var text: String
    /// Up to 1,500 bytes, varying with the ID.
    public var blob: String

    /// The entity for `id`.
    public static func make(_ id: Int) -> FixtureEntity {
        FixtureEntity(id: id, text: "entity \(id) ✓", blob: String(repeating: "x", count: (id * 37) % 1_500))
    }

    /// The entity for `id` at `revision`: the same ID, other content.
    public static func make(_ id: Int, revision: Int) -> FixtureEntity {
        var entity = make(id)
        entity.text = "entity \(id) ✓ r\(revision)"
        return entity
    }

    /// The revision `make(_:revision:)` wrote into the entity, if it did.
    public var revision: Int? {
        text.split(separator: "r").last.flatMap { Int($0) }
    }
}

/// ``FixtureEntity``'s stored shape, declaring two fields: what an app that starts querying
/// the entity's table by field opens it as.
public struct IndexedFixtureEntity: Codable, Identifiable, Sendable, Equatable, QueryableEntity {
    /// The ID.
    public var id: Int
    /// ``FixtureEntity/text``, declared as `text`.
    public var text: String
    /// ``FixtureEntity/blob``.
    public var blob: String
    /// The blob's length, declared as `blob_length`.
    public var blobLength: Int { blob.utf8.count }

    /// `entity`, read as this type.
    public init(_ entity: FixtureEntity) {
        id = entity.id
        text = entity.text
        blob = entity.blob
    }

    /// `text` and `blob_length`.
    public static let queryableFields: [QueryableField<IndexedFixtureEntity>] = [
        QueryableField(\.text, name: "text"), QueryableField(\.blobLength, name: "blob_length"),
    ]
}

/// Version 2 of ``FixtureEntity``, for the migration crash test: `text` renamed `title`, and
/// the blob's length added.
public struct FixtureEntityV2: Codable, Identifiable, Sendable, Equatable {
    /// The ID.
    public var id: Int
    /// Version 1's `text`.
    public var title: String
    /// Version 1's `blob`.
    public var blob: String
    /// The blob's length, which version 1 did not store.
    public var blobLength: Int

    /// Version 1's entity, upgraded.
    public init(upgrading old: FixtureEntity) {
        id = old.id
        title = old.text
        blob = old.blob
        blobLength = old.blob.count
    }

    /// What upgrading `FixtureEntity.make(id)` gives.
    public static func make(_ id: Int) -> FixtureEntityV2 {
        FixtureEntityV2(upgrading: .make(id))
    }

    /// The chain from ``FixtureEntity`` (version 1) to this entity (version 2).
    public static func migrations() throws -> Migrations<FixtureEntityV2> {
        try Migrations(.upgrade(from: 1) { (old: FixtureEntity) in FixtureEntityV2(upgrading: old) })
    }
}
