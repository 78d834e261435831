import Repositories

/// What a reader of a change feed holds: every page it read applied in order, as a device's
/// local copy is. A law compares it with the store.
struct _FeedMirror<Entity: Identifiable & Equatable & Sendable> where Entity.ID: Sendable {
    private(set) var entities: [Entity.ID: Entity] = [:]

    /// Applies `page` as a reader does: its saved entities stored, its deleted IDs removed.
    mutating func apply(_ page: ChangePage<Entity, Entity.ID>) {
        for entity in page.saved { entities[entity.id] = entity }
        for id in page.deleted { entities[id] = nil }
    }

    /// What differs between the mirror and `stored` (the store's `fetchAll()`), described
    /// with `catalog`; `nil` when they hold the same entities.
    func differences(from stored: [Entity], catalog: EntityCatalog<Entity>) -> String? {
        var missing: [Entity] = []
        var stale: [(mirrored: Entity, stored: Entity)] = []
        var seen = Set<Entity.ID>()
        for entity in stored {
            seen.insert(entity.id)
            guard let mirrored = entities[entity.id] else {
                missing.append(entity)
                continue
            }
            if mirrored != entity { stale.append((mirrored, entity)) }
        }
        let extra = entities.values.filter { !seen.contains($0.id) }
        var parts: [String] = []
        if !missing.isEmpty { parts.append("it lacks \(catalog.describe(missing))") }
        if !stale.isEmpty {
            let pairs = stale.prefix(8).map {
                "\(catalog.describe($0.mirrored)) where the store has \(catalog.describe($0.stored))"
            }
            parts.append("it holds " + pairs.joined(separator: ", "))
        }
        if !extra.isEmpty {
            let sorted = extra.sorted {
                (catalog.index(of: $0.id) ?? .max) < (catalog.index(of: $1.id) ?? .max)
            }
            parts.append("it still holds \(catalog.describe(sorted)), which the store no longer has")
        }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }
}
