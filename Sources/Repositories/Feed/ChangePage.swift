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
