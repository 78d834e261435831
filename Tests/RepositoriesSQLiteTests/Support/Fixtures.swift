import Foundation

/// An entity with a `String` ID, for running the conformance suite with text keys.
struct Note: Identifiable, Codable, Sendable, Equatable {
    var id: String
    var text: String
    /// A number JSON cannot hold when it is not finite, to make an entity unencodable.
    var rating: Double

    static func make(index: Int, revision: Int) -> Note {
        Note(
            id: "note-\(index)-ü \"q\"", text: "revision \(revision) of note \(index)",
            rating: Double(revision))
    }

    static func unencodable(index: Int) -> Note {
        var note = make(index: index, revision: 9_999)
        note.rating = .nan
        return note
    }
}

/// An entity with a `UUID` ID derived from its index.
struct Ticket: Identifiable, Codable, Sendable, Equatable {
    var id: UUID
    var seat: Int
    var holder: String?
    var price: Double

    static func make(index: Int, revision: Int) -> Ticket {
        let hex = String(index, radix: 16)
        let padded = String(repeating: "0", count: 12 - hex.count) + hex
        return Ticket(
            id: UUID(uuidString: "00000000-0000-4000-8000-\(padded)")!, seat: revision,
            holder: revision % 2 == 0 ? nil : "holder \(revision)", price: Double(index) / 4)
    }

    static func unencodable(index: Int) -> Ticket {
        var ticket = make(index: index, revision: 9_999)
        ticket.price = .infinity
        return ticket
    }
}
