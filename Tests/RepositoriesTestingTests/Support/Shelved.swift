/// An entity whose ID is a struct holding a string: the suite cannot respell it by itself.
struct Shelved: Identifiable, Codable, Sendable, Equatable {
    struct Place: Hashable, Codable, Sendable, CustomStringConvertible {
        var shelf: String
        var slot: Int
        var description: String { "\(shelf)/\(slot)" }
    }

    var id: Place
    var text: String

    static func make(index: Int, revision: Int) -> Shelved {
        Shelved(id: Place(shelf: "r\u{E9}serve", slot: index), text: "revision \(revision) of \(index)")
    }

    /// The same entity, its shelf spelled decomposed.
    static func respelled(index: Int, revision: Int) -> Shelved {
        var shelved = make(index: index, revision: revision)
        shelved.id.shelf = "re\u{301}serve"
        return shelved
    }
}
