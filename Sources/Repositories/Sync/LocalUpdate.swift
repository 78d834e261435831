/// What the snapshot streams (``OfflineFirstRepository/values(_:)``) learn after a write
/// section or a sync: the entities a write changed, so a stream keeps its answer from the
/// change itself, or that they must read again.
enum LocalUpdate<Entity: Identifiable & Sendable>: Sendable where Entity.ID: Sendable {
    /// These entities were written to the local store, in this order, and nothing else was.
    case wrote([LocalWrite<Entity>])
    /// The pending changes, the conflicts or the last sync's outcome changed; the local
    /// store did not.
    case refreshed
    /// Anything may have changed: read the local store and the conflicts again.
    case reread
}

/// One entity a write changed in the local store.
struct LocalWrite<Entity: Identifiable & Sendable>: Sendable where Entity.ID: Sendable {
    /// The entity's ID.
    var id: Entity.ID
    /// The entity saved, or `nil`: deleted.
    var entity: Entity?
    /// Whether the local store held the ID before the write (an update keeps its place in
    /// the store's order; a new entity goes after every other).
    var wasStored: Bool
}
