/// A repository that can say what changed since a point in its history: the entities saved
/// and the IDs deleted since a ``SyncCursor`` it handed out, page by page.
///
/// An offline-first sync pulls through the feed when its remote has one, so a sync costs
/// what changed rather than what exists: it keeps the cursor of the last page it applied
/// with the outbox, and asks only for what came after it.
///
/// ```swift
/// var cursor: SyncCursor? = nil          // nil: from the beginning, every entity there is
/// repeat {
///     let page = try await store.changes(since: cursor, limit: 500)
///     try await mirror.save(contentsOf: page.saved)
///     try await mirror.delete(ids: page.deleted)
///     cursor = page.next                   // keep it durably once the page is applied
/// } while page.hasMore
/// ```
///
/// The contract, which `ChangeFeedConformance` (in RepositoriesTesting) checks against any feed:
/// - each page holds an ID at most once, in its latest state at the time the page was
///   read: among ``ChangePage/saved`` when it exists, among ``ChangePage/deleted`` (a
///   tombstone) when it was deleted;
/// - paging on from `next` until ``ChangePage/hasMore`` is `false` delivers every write that
///   finished before the first page was asked for, and never skips a write that finished
///   later: it comes in this pass or in the next one. Reading a page twice is harmless;
/// - a `nil` cursor pages through every entity the store holds (and may include tombstones);
/// - a cursor the feed can no longer answer from (its deletions forgotten, or one another
///   store issued) throws `RepositoryError` with code ``RepositoryError/Code/cursorExpired``;
///   the reader then reads from `nil` again.
///
/// `InMemoryRepository`, `SQLiteRepository` and `PostgresRepository` conform, and so does every
/// decorator over one of them; `HTTPRepository` conforms and serves a feed when its
/// configuration names the API's (``servesChangeFeed``).
public protocol ChangeFeedRepository<Entity, ID>: Repository {
    /// The changes after `cursor` (`nil`: every entity there is), at most `limit` IDs.
    ///
    /// - Throws: `RepositoryError` with code `cursorExpired` when the feed cannot answer from
    ///   `cursor`, and `rejected` when `limit` is not above zero (or when the repository
    ///   serves no feed, ``servesChangeFeed``).
    func changes(since cursor: SyncCursor?, limit: Int) async throws -> ChangePage<Entity, ID>

    /// The changes after `cursor` as seen by a reader that holds only the entities meeting
    /// `subset`'s conditions and filters (its sort keys, offset and limit do not apply): an
    /// entity changed after the cursor is among ``ChangePage/saved`` when it meets them now,
    /// and among ``ChangePage/deleted`` when it does not, whether it left the subset, was
    /// deleted, or never was in it. A reader that removes what `deleted` names and saves what
    /// `saved` holds keeps exactly the subset; an offline-first repository with a `subset`
    /// pulls this way.
    ///
    /// The default reads ``changes(since:limit:)`` and moves each saved entity outside the
    /// subset to `deleted` (``ChangePage/restricted(to:)``), so a page is at most `limit`
    /// IDs either way. An API given the conditions as parameters sends the other entities as
    /// IDs, not bodies; the IDs still travel, a first read's included.
    ///
    /// - Throws: as ``changes(since:limit:)``.
    func changes(since cursor: SyncCursor?, limit: Int, in subset: Query<Entity>) async throws -> ChangePage<
        Entity, ID
    >

    /// Whether ``changes(since:limit:)`` can answer: `true` for a store that keeps a feed;
    /// `false` for one whose type can serve a feed but that was set up without one (an
    /// `HTTPRepository` whose configuration names no feed endpoint). An offline-first sync
    /// reads a remote that serves none in full, and says so in its report. Default: `true`.
    var servesChangeFeed: Bool { get }
}

extension ChangeFeedRepository {
    /// `true`: a store that conforms keeps a feed, unless it says otherwise.
    public var servesChangeFeed: Bool { true }

    /// The page ``changes(since:limit:)`` answers, each saved entity outside `subset` moved
    /// to `deleted`.
    public func changes(since cursor: SyncCursor?, limit: Int, in subset: Query<Entity>) async throws
        -> ChangePage<
            Entity, ID
        >
    {
        try await changes(since: cursor, limit: limit).restricted(to: subset)
    }
}
