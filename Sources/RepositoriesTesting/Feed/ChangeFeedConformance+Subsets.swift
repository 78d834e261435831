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
    /// Runs the law with a closure subset, which every feed answers on the device, then, for
    /// the suite's own ``ConformanceEntity``, with the condition `revision in [0, 2]`, which
    /// a feed that selects subsets where its data lives (an API given the conditions) runs
    /// itself.
    func subsetPagesKeepTheSubset(_ probe: _FeedProbe<Repo>) async throws {
        let members = _SubsetMembers<Entity>()
        try await keepsTheSubset(
            probe, members.query, "revisions 0 and 2", offset: 0, admitting: members.admit)
        let condition = Query<ConformanceEntity>().where(.isIn(\.revision, [0, 2]))
        if let subset = condition as? Query<Entity> {
            try await keepsTheSubset(probe, subset, "revision in [0, 2]", offset: 20, admitting: { _ in })
        }
    }

    /// Writes entities `offset..<offset + 12` so some leave `subset`, join it, change inside
    /// and outside it and are deleted, and checks a reader of the subset's pages against the
    /// store's entities in it, from `nil` and from a cursor. `admitting` is told the stored
    /// form of each entity written at revision 0 or 2.
    private func keepsTheSubset(
        _ probe: _FeedProbe<Repo>, _ subset: Query<Entity>, _ name: String, offset: Int,
        admitting: ([Entity]) -> Void
    ) async throws {
        let catalog = probe.catalog
        /// Admits the stored form of the entities of `indexes` to the subset.
        func admit(_ indexes: [Int]) async throws {
            let ids = Set(indexes.map { probe.id(offset + $0) })
            admitting(try await probe.fetchAll().filter { ids.contains($0.id) })
        }
        func expectExact(_ mirror: _FeedMirror<Entity>, _ context: String) async throws {
            let stored = try await probe.fetchAll().filter(subset.matches)
            if let differences = mirror.differences(from: stored, catalog: catalog) {
                throw LawBroken(
                    "\(context), a reader of the subset (\(name)) differs from the store's "
                        + "entities in it: \(differences)")
            }
        }
        var outside: [Entity] = []
        try await probe.save(contentsOf: probe.entities(offset..<offset + 8))
        try await admit(Array(0..<8))
        try await probe.save(contentsOf: probe.entities(offset + 8..<offset + 10, revision: 1))
        var mirror = _FeedMirror<Entity>()
        let cursor = try await probe.readToEnd(from: nil, in: subset) { page in
            mirror.apply(page)
            outside += page.saved.filter { !subset.matches($0) }
        }
        try await expectExact(mirror, "read from nil")

        try await probe.save(offset + 1, 1)  // leaves
        try await probe.save(offset + 8, 2)  // joins
        try await probe.save(offset + 2, 2)  // changes inside
        try await probe.delete(offset + 3)  // deleted
        try await probe.save(offset + 9, 3)  // changes outside
        // New: one in, one out.
        try await probe.save(contentsOf: [probe.entity(offset + 10), probe.entity(offset + 11, 1)])
        try await admit([8, 2, 10])
        let mark = probe.name(of: cursor)
        try await probe.readToEnd(from: cursor, in: subset) { page in
            mirror.apply(page)
            outside += page.saved.filter { !subset.matches($0) }
        }
        try await expectExact(mirror, "after entities left, joined, changed and were deleted past \(mark)")
        guard outside.isEmpty else {
            throw LawBroken(
                "pages for the subset (\(name)) saved \(catalog.describe(outside)), which are outside it")
        }
    }
}
