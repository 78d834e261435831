import Foundation

/// An entity with a `String` ID, for running the conformance suite on author entities.
struct Note: Identifiable, Codable, Sendable, Equatable {
    var id: String
    var text: String

    static func make(index: Int, revision: Int) -> Note {
        Note(id: "note-\(index)-ü", text: "revision \(revision) of note \(index)")
    }
}

/// An entity with a `UUID` ID derived from its index.
struct Ticket: Identifiable, Codable, Sendable, Equatable {
    var id: UUID
    var seat: Int
    var holder: String?

    static func make(index: Int, revision: Int) -> Ticket {
        let hex = String(index, radix: 16)
        let padded = String(repeating: "0", count: 12 - hex.count) + hex
        return Ticket(
            id: UUID(uuidString: "00000000-0000-4000-8000-\(padded)")!, seat: revision,
            holder: revision % 2 == 0 ? nil : "holder \(revision)")
    }
}
