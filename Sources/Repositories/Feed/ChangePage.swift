/// One page of a change feed (``ChangeFeedRepository/changes(since:limit:)``): what was saved
/// and deleted after a cursor, and the cursor to ask from next.
///
/// Each ID appears at most once in a page, in its latest state: apply ``saved`` and
/// ``deleted`` in any order, then keep ``next``.
public struct ChangePage<Entity: Sendable, ID: Hashable & Sendable>: Sendable {
    /// The entities saved (created or changed) after the cursor, as they are now.
    public var saved: [Entity]
    /// The IDs deleted after the cursor (tombstones): none of them exists now.
    public var deleted: [ID]
    /// Where the next page starts; kept once this page is applied.
    public var next: SyncCursor
    /// Whether more changes follow `next` already; `false` when this page reached the end
    /// of the feed as it stood.
    public var hasMore: Bool

    /// Creates a page from its parts.
    public init(saved: [Entity], deleted: [ID], next: SyncCursor, hasMore: Bool) {
        self.saved = saved
        self.deleted = deleted
        self.next = next
        self.hasMore = hasMore
    }
}

extension ChangePage: Equatable where Entity: Equatable {}

extension ChangePage where Entity: Identifiable, Entity.ID == ID {
    /// This page as a reader holding only `subset` sees it: each saved entity that does not
    /// meet the subset's conditions and filters is among ``deleted`` instead, since it left
    /// the subset or never was in it. The cursor and ``hasMore`` stay.
    public func restricted(to subset: Query<Entity>) -> ChangePage {
        guard subset.filters else { return self }
        var kept: [Entity] = []
        var left: [ID] = []
        for entity in saved {
            if subset.matches(entity) { kept.append(entity) } else { left.append(entity.id) }
        }
        return ChangePage(saved: kept, deleted: deleted + left, next: next, hasMore: hasMore)
    }
}
