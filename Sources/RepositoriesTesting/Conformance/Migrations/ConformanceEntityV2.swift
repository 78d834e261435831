import Foundation

/// Version 2 of the migration area's fixture: version 1's `title` renamed `text`, and a new
/// field, `pinned`, that the upgrade derives from the tags.
public struct ConformanceEntityV2: VersionedConformanceEntity {
    /// The identity.
    public var id: Int
    /// The text, `title` in version 1.
    public var text: String
    /// The revision the entity was made from.
    public var revision: Int
    /// When it was made, in whole seconds.
    public var created: Date
    /// Its tags, without `"pinned"`, which became ``pinned``.
    public var tags: [String]
    /// A note, if any.
    public var note: String?
    /// Whether it is pinned (new in version 2).
    public var pinned: Bool

    /// A version 2 entity.
    public init(
        id: Int, text: String, revision: Int, created: Date, tags: [String], note: String?, pinned: Bool
    ) {
        self.id = id
        self.text = text
        self.revision = revision
        self.created = created
        self.tags = tags
        self.note = note
        self.pinned = pinned
    }

    /// The upgrade from version 1: `title` becomes `text`, and the `"pinned"` tag becomes
    /// `pinned`.
    public init(upgrading old: ConformanceEntityV1) {
        self.init(
            id: old.id, text: old.title, revision: old.revision, created: old.created,
            tags: old.tags.filter { $0 != "pinned" }, note: old.note, pinned: old.tags.contains("pinned"))
    }

    /// The entity with ID `index` at `revision`, as version 2 writes it from the start.
    public static func make(index: Int, revision: Int) -> ConformanceEntityV2 {
        var entity = ConformanceEntityV2(upgrading: .make(index: index, revision: revision))
        entity.text = "v2 " + entity.text
        return entity
    }
}
