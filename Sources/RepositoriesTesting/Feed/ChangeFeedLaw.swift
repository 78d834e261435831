/// A law of `ChangeFeedRepository` that ``ChangeFeedConformance`` checks.
public enum ChangeFeedLaw: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    // reading the whole feed
    /// Paging from a `nil` cursor, a few IDs a page, until `hasMore` is `false` delivers every
    /// entity exactly as `fetchAll()` has it: a mirror that applies the pages equals the store.
    case readFromNilDeliversEveryEntity
    /// No page holds an ID twice: not twice among `saved`, not twice among `deleted`, not in
    /// both. Checked on every page the suite reads.
    case pageHoldsEachIDOnce
    /// No page holds more IDs (`saved` and `deleted` together) than the `limit` asked for.
    /// Checked on every page the suite reads.
    case pageRespectsLimit
    /// Paging ends: within a page count the writes bound, a page says `hasMore == false`, and
    /// it says so only at the end (a read from its `next`, with no write between, is empty).
    case lastPageHasNoMore

    // reading after a cursor
    /// Saves, replacements, deletes, batch saves, batch deletes and `deleteAll()` made after a
    /// cursor come back from it: each entity that exists as it is now, among `saved`; each one
    /// that existed at the cursor and is gone, among `deleted`.
    case changesAfterCursorComeBack
    /// Entities untouched since a cursor do not come back from it: neither among `saved` nor
    /// among `deleted`.
    case untouchedEntitiesStayOut
    /// A page read twice from the same cursor is harmless: a reader that lost a page, or
    /// applied it and read it again, still ends with a mirror equal to the store.
    case rereadPageIsHarmless
    /// A cursor kept as JSON (`JSONEncoder`, then `JSONDecoder`) is the cursor it was, and the
    /// feed answers from it with every change made since.
    case cursorSurvivesCoding
    /// Pages asked for a subset (`changes(since:limit:in:)`) keep a reader holding only the
    /// subset exact: from `nil` and after a cursor, past entities that leave it, join it,
    /// change inside it, are deleted, or change outside it, the mirror equals the store's
    /// entities in the subset, and no page saves an entity outside it.
    case subsetPagesKeepTheSubset

    // refusals
    /// A cursor the store never issued (a garbage token, a token altered, one from another
    /// store with a longer history) throws `RepositoryError` `cursorExpired`, never an answer.
    case unissuedCursorExpires
    /// A `limit` of 0 or below throws `RepositoryError` `rejected`.
    case nonPositiveLimitIsRejected
    /// Once the store forgot deletions made after a cursor
    /// (``ChangeFeedConformanceOptions/expireCursors``), the cursor throws `cursorExpired`;
    /// reading from `nil` then rebuilds the mirror, and cursors issued afterwards work.
    case forgottenDeletionsExpireCursors

    // concurrency and durability
    /// While many tasks save and delete at once, a reader paging and applying pages to a
    /// mirror never skips a write: once the writers finish and it pages to the end, its
    /// mirror equals the store.
    case concurrentWritesAreNeverSkipped
    /// A cursor taken before the store was closed (``ChangeFeedConformanceOptions/reopen``)
    /// either answers after reopening with every change since, or throws `cursorExpired`;
    /// it never answers with a change missing.
    case cursorSurvivesReopen

    /// The law's name.
    public var description: String { rawValue }
}
