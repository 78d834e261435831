/// A change an ``ObservedRepository`` announces after a write, or when told its data
/// changed elsewhere.
public enum RepositoryChange<Entity: Identifiable & Sendable>: Sendable where Entity.ID: Sendable {
    /// These entities were saved (by `save(_:)` or `save(contentsOf:)`), as they were written.
    case saved([Entity])
    /// The entities under these IDs were deleted.
    case deleted([Entity.ID])
    /// Every entity was deleted.
    case deletedAll
    /// The entities under these IDs may have changed: an explicit invalidation, or a write
    /// that threw and may or may not have landed. Read them again.
    case invalidated([Entity.ID])
    /// Anything may have changed. Read again.
    case invalidatedAll

    /// Whether the change may concern the entity under `id`.
    public func affects(_ id: Entity.ID) -> Bool {
        switch self {
        case .saved(let entities): entities.contains { $0.id == id }
        case .deleted(let ids), .invalidated(let ids): ids.contains(id)
        case .deletedAll, .invalidatedAll: true
        }
    }
}

extension RepositoryChange: Equatable where Entity: Equatable {}
