/// A law of `Repository` that ``RepositoryConformance`` checks.
public enum ConformanceLaw: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    // basics
    /// A saved entity is returned by the next `fetch(id:)`.
    case saveIsVisible
    /// Saving an entity under a stored ID replaces the stored one.
    case saveReplaces
    /// Saving the same entity twice leaves one copy, unchanged.
    case saveIsIdempotent
    /// `fetch(id:)` of an ID never saved returns `nil`.
    case fetchOfAbsentIDIsNil
    /// A deleted entity is gone, and only it.
    case deleteRemoves
    /// Deleting an ID that is not stored succeeds and changes nothing.
    case deleteOfAbsentIDSucceeds
    /// `deleteAll()` leaves the repository empty.
    case deleteAllEmpties
    /// `require(id:)` of an absent ID throws `RepositoryError` `notFound`.
    case requireThrowsNotFound
    /// `count()` equals `fetchAll().count`.
    case countMatchesFetchAll
    /// `fetch(ids:)` returns the stored entities in the order of the IDs, skipping absent and repeated IDs.
    case fetchIDsMatchesFetch
    /// `delete(ids:)` removes those IDs and no others.
    case deleteIDsRemovesOnlyThose
    /// IDs that are `==` but spelled differently (a string in two Unicode forms) name one
    /// entity: saving under both keeps one, in the place of the first, and fetching or
    /// deleting under either reaches it.
    case equalIDsAreOneEntity

    // batches
    /// `save(contentsOf:)` saves every entity; with a repeated ID the later entity wins.
    case batchIsSavedWhole
    /// A batch that throws leaves nothing of itself behind.
    case failedBatchLeavesNothing
    /// A batch whose task is cancelled is saved whole or not at all.
    case cancelledBatchIsAllOrNothing

    // ordering
    /// `fetchAll()` returns entities in the order of first insertion.
    case fetchAllKeepsInsertionOrder
    /// Replacing an entity keeps its place in `fetchAll()`.
    case replacedEntityKeepsItsPlace
    /// An entity deleted then saved again moves to the end.
    case reinsertedEntityMovesToEnd

    // queries
    /// `fetch(_ query:)` answers what the reference answers: filter, sort (stable), offset, limit.
    case queryMatchesReference
    /// A query with a negative offset or limit throws `RepositoryError` `rejected`.
    case negativeQueryBoundsAreRejected
    /// `count(_ query:)` equals `fetch(_ query:).count`.
    case queryCountMatchesFetch
    /// Conditions and sort keys on the entity's declared fields (`QueryableEntity`) answer
    /// what the reference answers: every operator, `nil`, unicode prefixes, `and`/`or`/`not`,
    /// ties in stored order, offset and limit, mixed with closure filters.
    case declaredFieldQueriesMatchReference

    // concurrency
    /// After many tasks write at once, the stored state is what the successful operations imply.
    case concurrentWritesAllLand
    /// A task reading its own keys while others write sees exactly what it wrote.
    case concurrentReadsSeeOwnWrites
    /// A reader never sees part of a batch.
    case batchesAreNeverSeenTorn

    // randomized
    /// Any sequence of operations gives the answers the reference `InMemoryRepository` gives.
    case matchesReferenceModel

    // durability
    /// Closing and reopening the store keeps every acknowledged write, in order.
    case survivesReopen

    // migrations
    /// Data written at version 1 (or 2) reopens under a longer chain with every entity
    /// upgraded as the chain says, in its place, and no upgrade run for a version the data
    /// is not at.
    case upgradesFollowTheChain
    /// Once a store has upgraded its data, opening it again runs no upgrade.
    case upgradeRunsOnce
    /// Saves, replacements and deletes made after an upgrade survive reopening.
    case writesAfterUpgradeSurviveReopen
    /// Opening data of a newer version throws `RepositoryError` `writtenByNewerVersion`
    /// (at open, or at the first read and every write), and the data is left so that the
    /// newer version still reads every entity.
    case newerDataIsRefusedAndKept
    /// A store opened with `Migrations()` reads what the store wrote without migrations,
    /// unchanged, and the other way round.
    case dataWrittenBeforeMigrationsReadsUnchanged

    /// The area whose method checks this law.
    public var area: ConformanceArea {
        switch self {
        case .saveIsVisible, .saveReplaces, .saveIsIdempotent, .fetchOfAbsentIDIsNil, .deleteRemoves,
            .deleteOfAbsentIDSucceeds, .deleteAllEmpties, .requireThrowsNotFound, .countMatchesFetchAll,
            .fetchIDsMatchesFetch, .deleteIDsRemovesOnlyThose, .equalIDsAreOneEntity:
            .basics
        case .batchIsSavedWhole, .failedBatchLeavesNothing, .cancelledBatchIsAllOrNothing: .batches
        case .fetchAllKeepsInsertionOrder, .replacedEntityKeepsItsPlace, .reinsertedEntityMovesToEnd:
            .ordering
        case .queryMatchesReference, .negativeQueryBoundsAreRejected, .queryCountMatchesFetch,
            .declaredFieldQueriesMatchReference:
            .queries
        case .concurrentWritesAllLand, .concurrentReadsSeeOwnWrites, .batchesAreNeverSeenTorn: .concurrency
        case .matchesReferenceModel: .randomized
        case .survivesReopen: .durability
        case .upgradesFollowTheChain, .upgradeRunsOnce, .writesAfterUpgradeSurviveReopen,
            .newerDataIsRefusedAndKept, .dataWrittenBeforeMigrationsReadsUnchanged:
            .migrations
        }
    }

    /// The law's name.
    public var description: String { rawValue }
}
