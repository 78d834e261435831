import Foundation

/// The entity every contender stores: an Int ID, a name, a Double, a Date and a string of
/// about 200 bytes, the shape a typical app record has.
///
/// A copy of `PeerEntity` in Sources/RepositoriesBenchmarks/PeerEntity.swift, field for field
/// and byte for byte (`make` too), so this package and the root benchmark measure the same
/// thing. An executable target cannot be imported, hence the copy: change both together.
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
