import Foundation

/// Version 1 of the migration area's fixture: the shape "the previous release" of an app
/// wrote, before any upgrade existed.
///
/// Its title carries combining marks, emoji and quotes, its date is whole seconds (so any
/// date strategy round-trips it), its note is sometimes `nil` and its tags list sometimes
/// empty, so an upgrade that a store decodes with the wrong decoder, or an optional it
/// drops, shows.
public struct ConformanceEntityV1: VersionedConformanceEntity {
    /// The identity, equal to the index the entity was made from.
    public var id: Int
    /// The text, renamed `text` in version 2.
    public var title: String
    /// The revision the entity was made from.
    public var revision: Int
    /// When it was made, in whole seconds.
    public var created: Date
    /// Its tags; `"pinned"` among them becomes version 2's `pinned`.
    public var tags: [String]
    /// A note, `nil` for some revisions.
    public var note: String?

    /// A version 1 entity.
    public init(id: Int, title: String, revision: Int, created: Date, tags: [String], note: String?) {
        self.id = id
        self.title = title
        self.revision = revision
        self.created = created
        self.tags = tags
        self.note = note
    }

    /// The entity with ID `index` at `revision`: every field but the ID changes with the
    /// revision.
    public static func make(index: Int, revision: Int) -> ConformanceEntityV1 {
        ConformanceEntityV1(
            id: index, title: "Entité №\(index) «r\(revision)» — 東京 🚀 e\u{301} \"quoted\"",
            revision: revision,
            created: Date(timeIntervalSince1970: 1_700_000_000 + Double(index * 1_000 + revision)),
            tags: ["pinned", "home", "work"].enumerated().filter { (index + revision + $0.offset) % 3 == 0 }
                .map(\.element),
            note: revision % 3 == 2 ? nil : "note \(revision) for \(index)")
    }
}
