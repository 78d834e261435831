/// The state behind ``InMemoryRepository``: a dictionary for O(1) access by ID, an array of
/// slots for insertion order, and, when a capacity is set, a recency list threaded through
/// the slots for least-recently-used eviction.
///
/// A value type mutated in place under the repository's lock; it is never copied.
struct InMemoryStorage<Entity: Identifiable> {
    typealias ID = Entity.ID

    struct Entry {
        var entity: Entity
        /// The entry's index in `order` (and in `recency` when a capacity is set).
        var slot: Int
    }

    /// Links of the recency list; `none` ends it.
    struct Link {
        var newer: Int
        var older: Int
    }

    private static var none: Int { -1 }
    private static var minimumTombstonesToCompact: Int { 64 }

    private(set) var entries: [ID: Entry] = [:]
    /// IDs in insertion order; `nil` marks a deleted entry until the next compaction.
    private var order: [ID?] = []
    private var tombstones = 0
    let capacity: Int?
    /// Parallel to `order`; empty unless `capacity` is set.
    private var recency: [Link] = []
    private var mostRecent = Self.none
    private var leastRecent = Self.none

    init(capacity: Int?) {
        self.capacity = capacity
    }

    var count: Int { entries.count }

    // MARK: Reading

    /// - Complexity: O(1).
    mutating func entity(for id: ID) -> Entity? {
        guard capacity != nil else { return entries[id]?.entity }
        guard let entry = entries[id] else { return nil }
        touch(entry.slot)
        return entry.entity
    }

    /// - Complexity: O(*n*).
    func all() -> [Entity] {
        var result: [Entity] = []
        result.reserveCapacity(entries.count)
        for case let id? in order {
            if let entry = entries[id] { result.append(entry.entity) }
        }
        return result
    }

    // MARK: Writing

    /// - Complexity: O(1) amortized.
    mutating func upsert(_ entity: Entity) {
        if let index = entries.index(forKey: entity.id) {
            entries.values[index].entity = entity
            if capacity != nil { touch(entries.values[index].slot) }
            return
        }
        let slot = order.count
        order.append(entity.id)
        entries[entity.id] = Entry(entity: entity, slot: slot)
        guard let capacity else { return }
        recency.append(Link(newer: Self.none, older: Self.none))
        pushMostRecent(slot)
        if entries.count > capacity { evictLeastRecent() }
    }

    /// - Complexity: O(1) amortized.
    mutating func remove(_ id: ID) {
        guard let entry = entries.removeValue(forKey: id) else { return }
        vacate(entry.slot)
    }

    mutating func removeAll() {
        entries.removeAll(keepingCapacity: true)
        order.removeAll(keepingCapacity: true)
        recency.removeAll(keepingCapacity: true)
        tombstones = 0
        mostRecent = Self.none
        leastRecent = Self.none
    }

    private mutating func vacate(_ slot: Int) {
        order[slot] = nil
        tombstones += 1
        if capacity != nil { unlink(slot) }
        if tombstones >= Self.minimumTombstonesToCompact && tombstones > order.count / 2 { compact() }
    }

    private mutating func evictLeastRecent() {
        let slot = leastRecent
        guard slot != Self.none, let id = order[slot] else { return }
        entries.removeValue(forKey: id)
        vacate(slot)
    }

    /// Drops the tombstones from `order`, renumbering slots; O(*n*), run when more than
    /// half the slots are dead, so O(1) amortized per delete.
    private mutating func compact() {
        var newSlot = [Int](repeating: Self.none, count: order.count)
        var compacted: [ID?] = []
        compacted.reserveCapacity(entries.count)
        for (oldSlot, id) in order.enumerated() {
            guard let id else { continue }
            newSlot[oldSlot] = compacted.count
            entries[id]?.slot = compacted.count
            compacted.append(id)
        }
        if capacity != nil {
            var relinked = [Link](repeating: Link(newer: Self.none, older: Self.none), count: compacted.count)
            var cursor = mostRecent
            var newer = Self.none
            while cursor != Self.none {
                let slot = newSlot[cursor]
                relinked[slot].newer = newer
                if newer != Self.none { relinked[newer].older = slot }
                newer = slot
                cursor = recency[cursor].older
            }
            mostRecent = mostRecent == Self.none ? Self.none : newSlot[mostRecent]
            leastRecent = leastRecent == Self.none ? Self.none : newSlot[leastRecent]
            recency = relinked
        }
        order = compacted
        tombstones = 0
    }

    // MARK: Recency list

    private mutating func touch(_ slot: Int) {
        guard slot != mostRecent else { return }
        unlink(slot)
        pushMostRecent(slot)
    }

    private mutating func pushMostRecent(_ slot: Int) {
        recency[slot] = Link(newer: Self.none, older: mostRecent)
        if mostRecent != Self.none { recency[mostRecent].newer = slot }
        mostRecent = slot
        if leastRecent == Self.none { leastRecent = slot }
    }

    private mutating func unlink(_ slot: Int) {
        let link = recency[slot]
        if link.newer != Self.none { recency[link.newer].older = link.older } else { mostRecent = link.older }
        if link.older != Self.none {
            recency[link.older].newer = link.newer
        } else {
            leastRecent = link.newer
        }
        recency[slot] = Link(newer: Self.none, older: Self.none)
    }
}
