/// The state behind ``InMemoryRepository``: a dictionary of entities for O(1) access by ID,
/// an array of slots for insertion order, and, when a capacity is set, a recency list
/// threaded through the slots for least-recently-used eviction.
///
/// Entities and their slots live in separate dictionaries so that the hot paths, a fetch
/// and the replacement of a stored entity, are one lookup in `entities`, the same work a
/// plain dictionary does; only inserts, deletes and recency updates touch `slots`.
///
/// A value type mutated in place under the repository's lock; it is never copied.
/// Inlinable, so callers in other modules get it specialized for their entity.
@usableFromInline
struct _InMemoryStorage<Entity: Identifiable> {
    @usableFromInline typealias ID = Entity.ID

    /// Links of the recency list; `none` ends it.
    @usableFromInline
    struct Link {
        @usableFromInline var newer: Int
        @usableFromInline var older: Int

        @inlinable init(newer: Int, older: Int) {
            self.newer = newer
            self.older = older
        }
    }

    @inlinable static var none: Int { -1 }
    @inlinable static var minimumTombstonesToCompact: Int { 64 }

    @usableFromInline var entities: [ID: Entity] = [:]
    /// Each stored ID's index in `order` (and in `recency` when a capacity is set).
    @usableFromInline var slots: [ID: Int] = [:]
    /// IDs in insertion order; `nil` marks a deleted entry until the next compaction.
    @usableFromInline var order: [ID?] = []
    @usableFromInline var tombstones = 0
    @usableFromInline let capacity: Int?
    /// Parallel to `order`; empty unless `capacity` is set.
    @usableFromInline var recency: [Link] = []
    @usableFromInline var mostRecent = -1
    @usableFromInline var leastRecent = -1
    /// The change feed's log, kept by an ``InMemoryRepository`` (a store's index has none).
    @usableFromInline var changeLog: _ChangeLog<ID>?
    /// The secondary indexes over the entity's declared fields (``QueryableEntity``), which
    /// answer queries without reading every entity; `nil` when it declares none.
    @usableFromInline var fieldIndexes: _FieldIndexes<Entity>?
    /// The idempotency keys applied (``IdempotentWriteRepository``), with what each did.
    var appliedKeys: [String: (outcome: KeyedWriteOutcome, stored: Entity?, fingerprint: String)] = [:]

    @inlinable init(capacity: Int?) {
        self.capacity = capacity
        self.fieldIndexes = _FieldIndexes<Entity>.forDeclaredFields()
    }

    @inlinable var count: Int { entities.count }

    /// Whether an entity is stored under `id`, without counting as a use.
    @inlinable func contains(_ id: ID) -> Bool { entities[id] != nil }

    // MARK: Reading

    /// - Complexity: O(1).
    @inlinable
    mutating func entity(for id: ID) -> Entity? {
        guard capacity != nil else { return entities[id] }
        guard let entity = entities[id], let slot = slots[id] else { return nil }
        touch(slot)
        return entity
    }

    /// The entities stored under `ids`, in the order of `ids`, skipping absent and repeated
    /// IDs (each counts as a use).
    ///
    /// - Complexity: O(*m*) for *m* IDs.
    @inlinable
    mutating func entities(for ids: [ID]) -> [Entity] {
        var seen = Set<ID>(minimumCapacity: ids.count)
        var found: [Entity] = []
        found.reserveCapacity(ids.count)
        for id in ids where seen.insert(id).inserted {
            if let entity = entity(for: id) { found.append(entity) }
        }
        return found
    }

    /// - Complexity: O(*n*).
    @inlinable
    func all() -> [Entity] {
        var result: [Entity] = []
        result.reserveCapacity(entities.count)
        for case let id? in order {
            if let entity = entities[id] { result.append(entity) }
        }
        return result
    }

    // MARK: Writing

    /// Makes room for `count` entities in all, so that inserting that many does not grow
    /// the tables one doubling at a time (an open replaying a journal knows how many come).
    @inlinable
    mutating func reserveCapacity(_ count: Int) {
        entities.reserveCapacity(count)
        slots.reserveCapacity(count)
        order.reserveCapacity(count)
    }

    /// - Complexity: O(1) amortized.
    @inlinable
    mutating func upsert(_ entity: Entity) {
        let id = entity.id
        changeLog?.record(id)
        if let old = entities.updateValue(entity, forKey: id) {
            if capacity != nil || fieldIndexes != nil, let slot = slots[id] {
                if capacity != nil { touch(slot) }
                fieldIndexes?.replace(old, with: entity, slot: slot)
            }
            return
        }
        let slot = order.count
        order.append(id)
        slots[id] = slot
        fieldIndexes?.insert(entity, slot: slot)
        guard let capacity else { return }
        recency.append(Link(newer: Self.none, older: Self.none))
        pushMostRecent(slot)
        if entities.count > capacity { evictLeastRecent() }
    }

    /// Upserts each of `entities` in order, as ``upsert(_:)`` does one.
    ///
    /// - Complexity: O(*n*) amortized.
    @inlinable
    mutating func upsert(contentsOf entities: [Entity]) {
        for entity in entities { upsert(entity) }
    }

    /// - Complexity: O(1) amortized.
    @inlinable
    mutating func remove(_ id: ID) {
        guard let entity = entities.removeValue(forKey: id), let slot = slots.removeValue(forKey: id) else {
            return
        }
        fieldIndexes?.remove(entity, slot: slot)
        changeLog?.recordDeletion(id)
        vacate(slot)
    }

    @inlinable
    mutating func removeAll() {
        if changeLog != nil {
            for case let id? in order where entities[id] != nil { changeLog?.recordDeletion(id) }
        }
        entities.removeAll(keepingCapacity: true)
        slots.removeAll(keepingCapacity: true)
        order.removeAll(keepingCapacity: true)
        fieldIndexes?.removeAll()
        recency.removeAll(keepingCapacity: true)
        tombstones = 0
        mostRecent = Self.none
        leastRecent = Self.none
    }

    @inlinable
    mutating func vacate(_ slot: Int) {
        order[slot] = nil
        tombstones += 1
        if capacity != nil { unlink(slot) }
        if tombstones >= Self.minimumTombstonesToCompact && tombstones > order.count / 2 { compact() }
    }

    @inlinable
    mutating func evictLeastRecent() {
        let slot = leastRecent
        guard slot != Self.none, let id = order[slot] else { return }
        if let entity = entities.removeValue(forKey: id) { fieldIndexes?.remove(entity, slot: slot) }
        slots.removeValue(forKey: id)
        changeLog?.recordDeletion(id)
        vacate(slot)
    }

    /// Drops the tombstones from `order`, renumbering slots; O(*n*), run when more than
    /// half the slots are dead, so O(1) amortized per delete.
    @inlinable
    mutating func compact() {
        var newSlot = [Int](repeating: Self.none, count: order.count)
        var compacted: [ID?] = []
        compacted.reserveCapacity(entities.count)
        for (oldSlot, id) in order.enumerated() {
            guard let id else { continue }
            newSlot[oldSlot] = compacted.count
            slots[id] = compacted.count
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
        fieldIndexes?.renumber(newSlot)
    }

    // MARK: Recency list

    @inlinable
    mutating func touch(_ slot: Int) {
        guard slot != mostRecent else { return }
        unlink(slot)
        pushMostRecent(slot)
    }

    @inlinable
    mutating func pushMostRecent(_ slot: Int) {
        recency[slot] = Link(newer: Self.none, older: mostRecent)
        if mostRecent != Self.none { recency[mostRecent].newer = slot }
        mostRecent = slot
        if leastRecent == Self.none { leastRecent = slot }
    }

    @inlinable
    mutating func unlink(_ slot: Int) {
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
