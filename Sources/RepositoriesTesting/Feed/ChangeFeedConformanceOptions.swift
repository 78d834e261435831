import Foundation
import Repositories

/// The hooks a store's feed offers ``ChangeFeedConformance`` and how hard the suite pushes it.
///
/// ```swift
/// var options = ChangeFeedConformanceOptions<InMemoryRepository<ConformanceEntity>>()
/// options.expireCursors = { store in store.forgetDeletions() }
/// ```
///
/// Without ``expireCursors`` the law `forgottenDeletionsExpireCursors` is skipped, and without
/// ``reopen`` the law `cursorSurvivesReopen`; both are listed in
/// ``ChangeFeedConformanceReport/skipped``, never counted as passed.
public struct ChangeFeedConformanceOptions<Repo: ChangeFeedRepository>: Sendable {
    /// Makes the store forget the deletions it remembers (drop its tombstones), so that a
    /// cursor issued before the call, with deletions after it, throws `cursorExpired`.
    /// Cursors issued after the call must keep working. For `InMemoryRepository`:
    /// `{ $0.forgetDeletions() }`.
    public var expireCursors: (@Sendable (Repo) async throws -> Void)?

    /// Closes a repository and opens it again over the same storage.
    public var reopen: (@Sendable (Repo) async throws -> Repo)?

    /// Releases a repository the suite has finished with (close it, delete its file).
    public var tearDown: (@Sendable (Repo) async throws -> Void)?

    /// Returns where the suite makes its writes, for a repository under test that refuses
    /// them (a read-only view over a store): the store beneath it. `nil`: the suite writes
    /// through the repository under test.
    public var writableStore: (@Sendable (Repo) -> any Repository<Repo.Entity, Repo.ID>)?

    /// The seed of the concurrency law's random writes. `nil` reads
    /// `REPOSITORY_CONFORMANCE_SEED` from the environment, or picks a fresh seed; a failure
    /// always prints the seed it used.
    public var seed: UInt64?

    /// The `limit` the suite pages with: small, so that every read takes several pages.
    public var pageLimit: Int

    /// How many tasks write at once while a reader pages, in the concurrency law.
    public var concurrentWriters: Int

    /// How many writes (saves, batch saves, deletes, batch deletes) each of those tasks makes.
    public var writesPerWriter: Int

    /// Creates options without hooks: pages of 3, and 8 writers of 150 writes each.
    public init(
        expireCursors: (@Sendable (Repo) async throws -> Void)? = nil,
        reopen: (@Sendable (Repo) async throws -> Repo)? = nil,
        tearDown: (@Sendable (Repo) async throws -> Void)? = nil,
        writableStore: (@Sendable (Repo) -> any Repository<Repo.Entity, Repo.ID>)? = nil,
        seed: UInt64? = nil,
        pageLimit: Int = 3,
        concurrentWriters: Int = 8,
        writesPerWriter: Int = 150
    ) {
        self.expireCursors = expireCursors
        self.reopen = reopen
        self.tearDown = tearDown
        self.writableStore = writableStore
        self.seed = seed
        self.pageLimit = pageLimit
        self.concurrentWriters = concurrentWriters
        self.writesPerWriter = writesPerWriter
    }

    /// The seed to use (``ConformanceSeed``).
    func resolvedSeed() throws -> UInt64 { try ConformanceSeed.resolve(seed) }
}
