import Foundation

/// What a ``Query`` selects, kept up to date from each write instead of running the query
/// again: the snapshot streams' list (``OfflineFirstRepository/values(_:)``), which would
/// otherwise read and sort the store after every save.
///
/// It holds the first `offset + limit` matches in the query's order (every match when the
/// query has no limit), and answers what running the query on the store answers, for a
/// store that keeps a new entity after every other and an updated one where it was, the
/// order ties fall back to (every store of this package). Where a write leaves that answer
/// unknown, ``apply(_:)`` says so and the caller runs the query again:
/// - a held entity left a full window, or was deleted from it: which entity moves up from
///   beyond it is not known here;
/// - an entity the store held before entered the window tying on every sort key with one
///   held (with no sort keys, every entity ties): its place among them is its place in the
///   store, not known here.
struct QueryWindow<Entity: Identifiable & Sendable> where Entity.ID: Sendable {
    private let query: Query<Entity>
    /// How many matches are held at most: `offset + limit`; `nil`, all.
    private let capacity: Int?
    /// The first `capacity` matches, in the query's order.
    private var rows: [Entity]
    private var members: Set<Entity.ID>
    /// Whether `rows` holds every match, not only the first `capacity`.
    private var complete: Bool

    /// The query whose answer the window starts from: the first `offset + limit` matches.
    static func prefix(of query: Query<Entity>) -> Query<Entity> {
        var prefix = query
        prefix.offset = 0
        prefix.limit = capacity(of: query)
        return prefix
    }

    /// A window over `query`, holding `prefix`: what the store answered to
    /// ``prefix(of:)``.
    init(_ query: Query<Entity>, holding prefix: [Entity]) {
        self.query = query
        self.capacity = Self.capacity(of: query)
        self.rows = prefix
        self.members = Set(prefix.map(\.id))
        self.complete = capacity.map { prefix.count < $0 } ?? true
    }

    private static func capacity(of query: Query<Entity>) -> Int? {
        guard let limit = query.limit else { return nil }
        let (sum, overflow) = query.offset.addingReportingOverflow(limit)
        return overflow ? nil : sum
    }

    /// What the query selects: the held matches after its offset, up to its limit.
    var entities: [Entity] {
        let start = min(query.offset, rows.count)
        let end = query.limit.map { min(rows.count, start + $0) } ?? rows.count
        return Array(rows[start..<end])
    }

    /// Takes `writes`, in the order the store took them; `false` when the answer is no
    /// longer known here (see the type's documentation), and the query must run again.
    mutating func apply(_ writes: [LocalWrite<Entity>]) -> Bool {
        writes.allSatisfy { apply($0) }
    }

    private mutating func apply(_ write: LocalWrite<Entity>) -> Bool {
        var removed: (index: Int, entity: Entity)?
        if members.contains(write.id), let index = rows.firstIndex(where: { $0.id == write.id }) {
            removed = (index, rows.remove(at: index))
            members.remove(write.id)
        }
        guard let entity = write.entity, query.matches(entity) else {
            // Gone from the answer: known, unless entities beyond the window move up.
            return removed == nil || complete
        }
        let lower = firstIndex { query.order($0, entity) != .orderedAscending }
        let upper = firstIndex { query.order($0, entity) == .orderedDescending }
        let position: Int
        if lower == upper {
            position = lower
        } else if let removed, query.order(removed.entity, entity) == .orderedSame {
            // Among its equals where it was: an update keeps its place in the store.
            position = removed.index
        } else if !write.wasStored && removed == nil {
            // New to the store, so after every entity it ties with.
            position = upper
        } else {
            return false
        }
        if !complete && position == rows.count {
            // After every held match, with more matches beyond: beyond the window if it is
            // still full; otherwise whether some come before it is not known.
            return removed == nil
        }
        rows.insert(entity, at: position)
        members.insert(entity.id)
        if let capacity, rows.count > capacity {
            members.remove(rows.removeLast().id)
            complete = false
        }
        return true
    }

    /// The first index whose row `isAtOrAfter` holds for (the rows are sorted, so it holds
    /// for every row from there on); `rows.count` when none.
    private func firstIndex(_ isAtOrAfter: (Entity) -> Bool) -> Int {
        var low = 0
        var high = rows.count
        while low < high {
            let middle = (low + high) / 2
            if isAtOrAfter(rows[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
