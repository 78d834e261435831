import Repositories

/// Every page of a feed from a cursor until `hasMore` is `false`.
public struct FeedRead<Entity: Sendable, ID: Hashable & Sendable> {
    /// The pages, in order.
    public var pages: [ChangePage<Entity, ID>] = []
    /// The cursor after the last page.
    public var next: SyncCursor?

    /// Every saved entity of every page.
    public var saved: [Entity] { pages.flatMap(\.saved) }
    /// Every deleted ID of every page.
    public var deleted: [ID] { pages.flatMap(\.deleted) }
    /// Whether no page held a change.
    public var isEmpty: Bool { saved.isEmpty && deleted.isEmpty }

    /// Reads `store`'s feed from `cursor` to its end, `limit` changes a page.
    public static func all<Store: ChangeFeedRepository<Entity, ID>>(
        of store: Store, from cursor: SyncCursor? = nil, limit: Int = 100
    ) async throws -> FeedRead {
        var read = FeedRead(next: cursor)
        repeat {
            let page = try await store.changes(since: read.next, limit: limit)
            read.pages.append(page)
            read.next = page.next
        } while read.pages.last?.hasMore == true
        return read
    }
}
