/// An entity as a ``VersionTaggingRepository`` returned it, with the tag of its version.
public struct TaggedEntity<Entity: Sendable>: Sendable {
    /// The entity.
    public var entity: Entity
    /// The tag of this version (an HTTP `ETag`, quotes included), or `nil` when the remote
    /// sent none.
    public var tag: String?

    /// Pairs `entity` with the tag of its version.
    public init(_ entity: Entity, tag: String?) {
        self.entity = entity
        self.tag = tag
    }
}

extension TaggedEntity: Equatable where Entity: Equatable {}
