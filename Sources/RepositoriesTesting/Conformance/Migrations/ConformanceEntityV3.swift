import Foundation

/// Version 3 of the migration area's fixture: version 2 with a `priority` the upgrade
/// derives from `pinned` and the tags, and the note folded into the text.
public struct ConformanceEntityV3: VersionedConformanceEntity {
    /// The identity.
    public var id: Int
    /// The text, with version 2's note after it.
    public var text: String
    /// The revision the entity was made from.
    public var revision: Int
    /// When it was made, in whole seconds.
    public var created: Date
    /// Its tags.
    public var tags: [String]
    /// Whether it is pinned.
    public var pinned: Bool
    /// Its priority (new in version 3): 0 when pinned, else 1 plus the number of tags.
    public var priority: Int

    /// A version 3 entity.
    public init(
        id: Int, text: String, revision: Int, created: Date, tags: [String], pinned: Bool, priority: Int
    ) {
        self.id = id
        self.text = text
        self.revision = revision
        self.created = created
        self.tags = tags
        self.pinned = pinned
        self.priority = priority
    }

    /// The upgrade from version 2: the note joins the text, and the priority follows from
    /// `pinned` and the tags.
    public init(upgrading old: ConformanceEntityV2) {
        self.init(
            id: old.id, text: old.note.map { "\(old.text) — \($0)" } ?? old.text, revision: old.revision,
            created: old.created, tags: old.tags, pinned: old.pinned,
            priority: old.pinned ? 0 : 1 + old.tags.count)
    }

    /// The entity with ID `index` at `revision`, as version 3 writes it from the start.
    public static func make(index: Int, revision: Int) -> ConformanceEntityV3 {
        var entity = ConformanceEntityV3(upgrading: .make(index: index, revision: revision))
        entity.text = "v3 " + entity.text
        return entity
    }
}
