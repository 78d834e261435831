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
/// decorator over one of them; an `HTTPRepository` feed follows.
public protocol ChangeFeedRepository<Entity, ID>: Repository {
    /// The changes after `cursor` (`nil`: every entity there is), at most `limit` IDs.
    ///
    /// - Throws: `RepositoryError` with code `cursorExpired` when the feed cannot answer from
    ///   `cursor`, and `rejected` when `limit` is not above zero.
    func changes(since cursor: SyncCursor?, limit: Int) async throws -> ChangePage<Entity, ID>
}
