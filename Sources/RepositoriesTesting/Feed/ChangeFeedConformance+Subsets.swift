import Repositories
import Synchronization

/// The subset `subsetPagesKeepTheSubset` reads: the entities as the store keeps them after
/// a write at revision 0 or 2. Taken from the store, not from `makeEntity`, so a store that
/// normalises what it keeps (an API stamping a field) is judged on what it holds.
final class _SubsetMembers<Entity: Identifiable & Equatable & Sendable>: Sendable where Entity.ID: Sendable {
    private let members = Mutex<[Entity.ID: [Entity]]>([:])

    /// Admits `entity`, as the store holds it, to the subset.
    func admit(_ entities: [Entity]) {
        members.withLock { members in
            for entity in entities { members[entity.id, default: []].append(entity) }
        }
    }

    /// The subset as a query: a filter closure, so every feed answers it, whatever its
    /// entity declares (an API's feed restricts its pages on the device).
    var query: Query<Entity> {
        Query<Entity>().filter { [self] entity in
            members.withLock { $0[entity.id]?.contains(entity) == true }
        }
    }
}

extension ChangeFeedConformance {
    func subsetPagesKeepTheSubset(_ probe: _FeedProbe<Repo>) async throws {
        let catalog = probe.catalog
        let members = _SubsetMembers<Entity>()
        let subset = members.query
        /// Admits the stored form of the entities of `indexes` to the subset.
        func admit(_ indexes: [Int]) async throws {
            let ids = Set(indexes.map(probe.id))
            members.admit(try await probe.fetchAll().filter { ids.contains($0.id) })
        }
        func expectExact(_ mirror: _FeedMirror<Entity>, _ context: String) async throws {
            let stored = try await probe.fetchAll().filter(subset.matches)
            if let differences = mirror.differences(from: stored, catalog: catalog) {
                throw LawBroken(
                    "\(context), a reader of the subset (revisions 0 and 2) differs from the store's "
                        + "entities in it: \(differences)")
            }
        }
        var outside: [Entity] = []
        try await probe.save(contentsOf: probe.entities(0..<8))
        try await admit(Array(0..<8))
        try await probe.save(contentsOf: probe.entities(8..<10, revision: 1))
        var mirror = _FeedMirror<Entity>()
        var cursor = try await probe.readToEnd(from: nil, in: subset) { page in
            mirror.apply(page)
            outside += page.saved.filter { !subset.matches($0) }
        }
        try await expectExact(mirror, "read from nil")

        try await probe.save(1, 1)  // leaves
        try await probe.save(8, 2)  // joins
        try await probe.save(2, 2)  // changes inside
        try await probe.delete(3)  // deleted
        try await probe.save(9, 3)  // changes outside
        try await probe.save(contentsOf: [probe.entity(10), probe.entity(11, 1)])  // new: one in, one out
        try await admit([8, 2, 10])
        let mark = probe.name(of: cursor)
        cursor = try await probe.readToEnd(from: cursor, in: subset) { page in
            mirror.apply(page)
            outside += page.saved.filter { !subset.matches($0) }
        }
        try await expectExact(mirror, "after entities left, joined, changed and were deleted past \(mark)")
        guard outside.isEmpty else {
            throw LawBroken("pages for the subset saved \(catalog.describe(outside)), which are outside it")
        }
    }
}
