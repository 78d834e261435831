import Foundation

/// The entity of the side-by-side measurements with GRDB (issue 15, and
/// `Examples/PeerBenchmark`): an Int ID, a name, a Double, a Date and a string of about
/// 200 bytes, the shape a typical app record has.
struct PeerEntity: Codable, Identifiable, Sendable, Equatable {
    var id: Int
    var name: String
    var score: Double
    var createdAt: Date
    var notes: String

    /// The entity with `id`: deterministic, so every run stores the same bytes.
    static func make(_ id: Int, revision: Int = 0) -> PeerEntity {
        PeerEntity(
            id: id, name: "item \(id) r\(revision)", score: Double(id % 1_000) / 8,
            createdAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(id)),
            notes: String(repeating: "note \(id % 97) ", count: 200 / 8 + 1).prefix(200).description)
    }
}

/// The floor the read-back figures are measured against: decoding the same entities from
/// JSON, one `JSONDecoder` run over an array of them, with no storage at all. Issue 15's
/// targets are fractions of it (GRDB reads 100k rows back in about 0.3× of it here).
struct JSONDecodeFloor {
    let encoded: Data

    /// Encodes `entities` once, outside any measurement.
    init<Entity: Encodable>(_ entities: [Entity]) throws {
        encoded = try JSONEncoder().encode(entities)
    }

    /// Decodes every entity; returns how many, as a measured body does.
    func decodeAll<Entity: Decodable>(as type: Entity.Type) throws -> Int {
        try JSONDecoder().decode([Entity].self, from: encoded).count
    }
}
