/// The outbox's pending changes as the UI reads them, kept in memory beside its file and
/// changed with it: a badge or a snapshot reads them without reading the file's records
/// again, and a change costs what it changes.
struct PendingList<Entity: Codable & Identifiable & Sendable>: Sendable where Entity.ID: Codable & Sendable {
    /// The changes in the order their IDs were first changed: a replaced change keeps its
    /// place, a new ID goes last.
    private(set) var changes: [PendingChange<Entity>] = []
    private var positions: [Entity.ID: Int] = [:]
    /// The IDs whose change waits to be sent.
    private(set) var pendingIDs: Set<Entity.ID> = []
    /// The error each refused change was refused with, by ID.
    private(set) var rejections: [Entity.ID: RepositoryError] = [:]

    /// The list of `changes`, in their order.
    init(_ changes: [PendingChange<Entity>]) {
        put(changes)
    }

    /// Puts each change in its ID's place, or last for a new ID.
    mutating func put(_ changes: some Sequence<PendingChange<Entity>>) {
        for change in changes {
            if let position = positions[change.id] {
                self.changes[position] = change
            } else {
                positions[change.id] = self.changes.count
                self.changes.append(change)
            }
            if change.isRejected {
                pendingIDs.remove(change.id)
                rejections[change.id] = change.lastError
            } else {
                pendingIDs.insert(change.id)
                rejections.removeValue(forKey: change.id)
            }
        }
    }

    /// Removes the changes of `ids`; the others keep their order.
    mutating func remove(_ ids: some Sequence<Entity.ID>) {
        var gone = Set<Entity.ID>()
        for id in ids where positions[id] != nil {
            gone.insert(id)
            pendingIDs.remove(id)
            rejections.removeValue(forKey: id)
        }
        guard !gone.isEmpty else { return }
        changes.removeAll { gone.contains($0.id) }
        positions = Dictionary(uniqueKeysWithValues: changes.enumerated().map { ($0.element.id, $0.offset) })
    }
}
