import Foundation
import Repositories

/// What a store offers and how hard the conformance suite pushes it.
///
/// ```swift
/// var options = ConformanceOptions<FileRepository<Note>>()
/// options.reopen = { store in
///     try await store.close()
///     return try await FileRepository<Note>(fileURL: store.fileURL)
/// }
/// options.tearDown = { try await $0.close() }
/// ```
public struct ConformanceOptions<Repo: Repository>: Sendable {
    /// Capabilities the store does not offer; the laws that need them are skipped and listed
    /// in ``ConformanceReport/skipped``.
    public var unsupported: Set<ConformanceCapability>

    /// Closes a repository and opens it again over the same storage. Without it the
    /// durability area is skipped (and reported as skipped).
    public var reopen: (@Sendable (Repo) async throws -> Repo)?

    /// Releases a repository the suite has finished with (close it, delete its file).
    public var tearDown: (@Sendable (Repo) async throws -> Void)?

    /// Returns a new, empty place the store keeps its data, which the migration area opens
    /// with each version of its fixture (see ``MigrationStoreLocation``). Without it the
    /// migration area is skipped (and reported as skipped): pass one for a store that takes
    /// `migrations:`.
    public var makeMigrationStoreLocation: (@Sendable () async throws -> any MigrationStoreLocation)?

    /// Returns an entity with ID `index` that the store cannot encode, used to make a batch
    /// fail. ``ConformanceEntity`` supplies its own; for another entity without one, the
    /// `failedBatchLeavesNothing` law is skipped.
    public var makeUnencodableEntity: (@Sendable (Int) -> Repo.Entity)?

    /// Returns the entity `makeEntity(index, revision)` returns, under an ID that is `==` to
    /// its ID (and hashes alike) but is spelled differently: a string inside it in another
    /// Unicode normalization form, say. The `equalIDsAreOneEntity` law saves under both.
    ///
    /// Without it, the suite makes such entities itself when the ID is a `String` and the
    /// entity is `Codable` with its ID under the key `"id"` (it respells an ID with an
    /// accented letter in the other normalization form), and for integer and `UUID` IDs,
    /// whose equal values are spelled alike, checks the one spelling; for any other entity
    /// the law is skipped, and the report says why. The suite throws
    /// ``ConformanceSetupError`` when the IDs it returns are not `==` or are spelled alike.
    public var makeEntityWithRespelledID: (@Sendable (_ index: Int, _ revision: Int) -> Repo.Entity)?

    /// The seed of every randomized choice. `nil` reads `REPOSITORY_CONFORMANCE_SEED` from the
    /// environment, or picks a fresh seed; a failure always prints the seed it used.
    public var seed: UInt64?

    /// How many tasks the concurrency area runs at once.
    public var concurrentTasks: Int
    /// How many operations each of those tasks performs.
    public var operationsPerTask: Int
    /// How many random sequences the randomized area tries.
    public var randomizedRuns: Int
    /// How many operations each random sequence holds.
    public var operationsPerRun: Int

    /// Creates options for a store that offers every capability, with the default effort:
    /// 8 tasks × 1,000 operations, 30 random sequences of 40 operations.
    public init(
        unsupported: Set<ConformanceCapability> = [],
        reopen: (@Sendable (Repo) async throws -> Repo)? = nil,
        tearDown: (@Sendable (Repo) async throws -> Void)? = nil,
        makeMigrationStoreLocation: (@Sendable () async throws -> any MigrationStoreLocation)? = nil,
        makeUnencodableEntity: (@Sendable (Int) -> Repo.Entity)? = nil,
        makeEntityWithRespelledID: (@Sendable (Int, Int) -> Repo.Entity)? = nil,
        seed: UInt64? = nil,
        concurrentTasks: Int = 8,
        operationsPerTask: Int = 1_000,
        randomizedRuns: Int = 30,
        operationsPerRun: Int = 40
    ) {
        self.unsupported = unsupported
        self.reopen = reopen
        self.tearDown = tearDown
        self.makeMigrationStoreLocation = makeMigrationStoreLocation
        self.makeUnencodableEntity = makeUnencodableEntity
        self.makeEntityWithRespelledID = makeEntityWithRespelledID
        self.seed = seed
        self.concurrentTasks = concurrentTasks
        self.operationsPerTask = operationsPerTask
        self.randomizedRuns = randomizedRuns
        self.operationsPerRun = operationsPerRun
    }

    func supports(_ capability: ConformanceCapability) -> Bool {
        !unsupported.contains(capability)
    }

    /// The seed to use (``ConformanceSeed``).
    func resolvedSeed() throws -> UInt64 { try ConformanceSeed.resolve(seed) }
}
