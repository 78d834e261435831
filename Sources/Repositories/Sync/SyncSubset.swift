/// The part of the remote an offline-first repository syncs: the entities that meet a
/// query's conditions on declared fields (`owner == me`), checked once when the repository
/// is made.
///
/// Only conditions make a subset: the remote can select them where its data lives (SQL, an
/// API's parameters, a feed that reports what left), and two subsets are told apart by
/// them, so a cursor read for one is never used for another (``key``). A closure filter, a
/// sort, an offset or a limit is refused: membership in "the 20 newest" changes without the
/// entity changing, which no change feed reports.
struct SyncSubset<Entity>: Sendable {
    /// The query: conditions only.
    let query: Query<Entity>
    /// The conditions spelled exactly (each value to the bit, in the order they were
    /// given): the cursor file keeps it beside its cursor. The same conditions in another
    /// order are another key, which costs one full pull, never a wrong one.
    let key: String

    /// The subset `query` selects.
    ///
    /// - Throws: `rejected` naming what the query holds besides conditions on declared fields,
    ///   or a condition on a field the entity does not declare.
    init(_ query: Query<Entity>) throws {
        try query.validate()
        var extra: [String] = []
        if !query.predicates.isEmpty { extra.append("\(query.predicates.count) filter closure(s)") }
        if !query.sortKeys.isEmpty { extra.append("\(query.sortKeys.count) sort key(s)") }
        if query.offset != 0 { extra.append("an offset of \(query.offset)") }
        if let limit = query.limit { extra.append("a limit of \(limit)") }
        guard extra.isEmpty else {
            throw RepositoryError.rejected(
                "The subset to sync holds \(extra.joined(separator: ", ")); a subset is conditions on "
                    + "declared fields only, which the remote can select and its change feed can follow",
                recovery:
                    "Build the subset with Query<\(Entity.self)>().where(…) alone; filter, sort and page "
                    + "what the local store holds with fetch(_:)")
        }
        self.query = query
        key = query.conditions.map(\.node.exactDescription).joined(separator: " && ")
    }
}
