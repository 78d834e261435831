import Repositories
import RepositoriesTesting
import Testing

/// The suite's own tests: each deliberately broken store is caught by the law that names
/// its defect, and the failure says how to reproduce it.
@Suite struct BrokenStoreTests {
    /// Runs the whole suite against a store with `defect` and returns the failure it threw.
    func failure(of defect: BrokenRepository<ConformanceEntity>.Defect, seed: UInt64 = 7) async throws
        -> ConformanceFailure
    {
        let suite = RepositoryConformance(
            options: ConformanceOptions(seed: seed),
            makeRepository: { BrokenRepository<ConformanceEntity>(defect) })
        let error = await #expect(throws: ConformanceFailure.self) { try await suite.run() }
        return try #require(error)
    }

    @Test func storeThatLosesAWriteIsCaughtBySaveIsVisible() async throws {
        let failure = try await failure(of: .losesEveryThirdSave)
        #expect(failure.brokenLaws.contains(.saveIsVisible))
        #expect(
            failure.brokenLaws.contains(.concurrentWritesAllLand)
                || failure.brokenLaws.contains(.concurrentReadsSeeOwnWrites))
    }

    @Test func nonAtomicBatchIsCaughtByFailedBatchLeavesNothing() async throws {
        let failure = try await failure(of: .nonAtomicBatch)
        #expect(failure.brokenLaws.contains(.failedBatchLeavesNothing))
        let violation = try #require(failure.violations.first { $0.law == .failedBatchLeavesNothing })
        #expect(violation.operations.contains { $0.contains("unencodable") })
    }

    @Test func wrongOrderIsCaughtByTheOrderingLaws() async throws {
        let failure = try await failure(of: .reversedOrder)
        #expect(failure.brokenLaws.contains(.fetchAllKeepsInsertionOrder))
        #expect(failure.brokenLaws.contains(.replacedEntityKeepsItsPlace))
        #expect(failure.brokenLaws.contains(.reinsertedEntityMovesToEnd))
    }

    @Test func throwingOnAbsentDeleteIsCaughtByDeleteOfAbsentIDSucceeds() async throws {
        let failure = try await failure(of: .throwsOnAbsentDelete)
        #expect(failure.brokenLaws.contains(.deleteOfAbsentIDSucceeds))
        let violation = try #require(failure.violations.first { $0.law == .deleteOfAbsentIDSucceeds })
        #expect(violation.operations.last?.contains("threw") == true)
    }

    @Test func tornBatchIsCaughtByBatchesAreNeverSeenTorn() async throws {
        let failure = try await failure(of: .tornBatches)
        #expect(failure.brokenLaws == [.batchesAreNeverSeenTorn])
    }

    @Test func subtleDefectIsCaughtByTheModelAndShrunk() async throws {
        let failure = try await failure(of: .deleteIDsSkipsLast, seed: 42)
        #expect(failure.brokenLaws.contains(.deleteIDsRemovesOnlyThose))
        let randomized = try #require(failure.violations.first { $0.law == .matchesReferenceModel })
        #expect(randomized.seed == 42)
        #expect(randomized.operations.count <= 4, "shrunk to \(randomized.operations)")
        #expect(randomized.operations.contains { $0.hasPrefix("delete(ids:") })
        #expect(failure.description.contains("seed 42"))
    }

    @Test func aSeedReproducesTheSameShrunkSequence() async throws {
        let first = try await failure(of: .deleteIDsSkipsLast, seed: 1_234)
        let second = try await failure(of: .deleteIDsSkipsLast, seed: 1_234)
        let firstSequence = first.violations.first { $0.law == .matchesReferenceModel }?.operations
        let secondSequence = second.violations.first { $0.law == .matchesReferenceModel }?.operations
        #expect(firstSequence != nil)
        #expect(firstSequence == secondSequence)
    }

    @Test(arguments: [
        (BrokenRepository<ConformanceEntity>.Defect.ignoresReplacement, ConformanceLaw.saveReplaces),
        (.staleCount, .countMatchesFetchAll),
        (.ignoresSorting, .queryMatchesReference),
        (.clampsNegativeBounds, .negativeQueryBoundsAreRejected),
        (.ignoresConditions, .declaredFieldQueriesMatchReference),
        (.countIgnoresPaging, .queryCountMatchesFetch),
        (.stopsBatchOnCancellation, .cancelledBatchIsAllOrNothing),
        (.losesLastWriteOnReopen, .survivesReopen),
    ])
    func eachDefectIsCaughtByTheLawThatNamesIt(
        defect: BrokenRepository<ConformanceEntity>.Defect, law: ConformanceLaw
    ) async throws {
        var options = ConformanceOptions<BrokenRepository<ConformanceEntity>>(seed: 11)
        options.reopen = { try await $0.reopened() }
        let suite = RepositoryConformance(
            options: options, makeRepository: { BrokenRepository<ConformanceEntity>(defect) })
        let failure = try await #require(throws: ConformanceFailure.self) { try await suite.run() }
        #expect(failure.brokenLaws.contains(law), "\(defect) broke \(failure.brokenLaws)")
    }

    @Test func unsupportedCapabilitiesAreSkippedNotPassed() async throws {
        let suite = RepositoryConformance(
            options: ConformanceOptions(unsupported: [.insertionOrder, .atomicBatches]),
            makeRepository: { BrokenRepository<ConformanceEntity>(.reversedOrder) })
        let report = try await suite.run()
        let skipped = Set(report.skipped.map(\.law))
        #expect(
            skipped
                == Set<ConformanceLaw>([
                    .fetchAllKeepsInsertionOrder, .replacedEntityKeepsItsPlace, .reinsertedEntityMovesToEnd,
                    .failedBatchLeavesNothing, .cancelledBatchIsAllOrNothing, .batchesAreNeverSeenTorn,
                    .survivesReopen,
                ]).union(ConformanceArea.migrations.laws))
        #expect(skipped.isDisjoint(with: report.passed))
        #expect(report.description.contains("skipped"))
    }

    @Test func aRepositoryThatIsNotEmptyAtStartIsReported() async throws {
        let suite = RepositoryConformance(makeRepository: {
            InMemoryRepository([ConformanceEntity.make(index: 500, revision: 0)])
        })
        let failure = try await #require(throws: ConformanceFailure.self) { try await suite.basics() }
        #expect(failure.violations.allSatisfy { $0.message.contains("must return an empty one") })
    }

    @Test func makeEntityThatIgnoresTheRevisionIsASetupError() async throws {
        let suite = RepositoryConformance(
            makeRepository: { InMemoryRepository<ConformanceEntity>() },
            makeEntity: { index, _ in ConformanceEntity.make(index: index, revision: 0) })
        let error = await #expect(throws: ConformanceSetupError.self) { try await suite.basics() }
        #expect(error?.message.contains("must change with the revision") == true)
    }

    @Test func anAreaThatCheckedNothingFailsInsteadOfPassing() async throws {
        let suite = RepositoryConformance(makeRepository: { InMemoryRepository<ConformanceEntity>() })
        let error = await #expect(throws: ConformanceSetupError.self) { try await suite.durability() }
        #expect(error?.message.contains("reopen") == true)
        // run() over every area still passes, and lists the skip.
        let report = try await suite.run()
        #expect(report.skipped.contains { $0.law == .survivesReopen })
    }

    @Test func makeEntityThatRepeatsAnIDIsASetupError() async throws {
        let suite = RepositoryConformance(
            makeRepository: { InMemoryRepository<ConformanceEntity>() },
            makeEntity: { index, revision in ConformanceEntity.make(index: index % 10, revision: revision) })
        await #expect(throws: ConformanceSetupError.self) { try await suite.basics() }
    }

    // MARK: Equal IDs spelled differently

    @Test func storeThatTellsEqualIDsApartIsCaughtByEqualIDsAreOneEntity() async throws {
        let suite = RepositoryConformance(
            options: ConformanceOptions(seed: 13),
            makeRepository: { BrokenRepository<Label>(.distinguishesEqualIDs) }, makeEntity: Label.make)
        let failure = try await #require(throws: ConformanceFailure.self) { try await suite.run() }
        #expect(failure.brokenLaws == [.equalIDsAreOneEntity], "\(failure)")
        let violation = try #require(failure.violations.first)
        #expect(
            violation.operations.first == #"#1's ID spelled two ways: label-1-\u{E9} and label-1-e\u{301}"#)
    }

    @Test func storeThatKeepsOneEntityPerIDKeepsTheLawWithStringIDs() async throws {
        let report = try await RepositoryConformance(
            makeRepository: { InMemoryRepository<Label>() }, makeEntity: Label.make
        ).basics()
        #expect(report.passed.contains(.equalIDsAreOneEntity))
        #expect(report.skipped.isEmpty)
    }

    @Test func integerIDsHaveOneSpellingAndKeepTheLaw() async throws {
        let report = try await RepositoryConformance(makeRepository: {
            InMemoryRepository<ConformanceEntity>()
        })
        .basics()
        #expect(report.passed.contains(.equalIDsAreOneEntity))
    }

    @Test func stringIDsWithOneSpellingSkipTheLawSayingWhatToDo() async throws {
        let report = try await RepositoryConformance(
            makeRepository: { InMemoryRepository<Label>() }, makeEntity: Label.plain
        ).basics()
        let skip = try #require(report.skipped.first { $0.law == .equalIDsAreOneEntity })
        #expect(skip.reason.contains("accented letter"))
        #expect(skip.reason.contains("makeEntityWithRespelledID"))
        #expect(!report.passed.contains(.equalIDsAreOneEntity))
    }

    @Test func otherIDTypesAreSkippedUnlessTheAuthorRespellsThem() async throws {
        let without = try await RepositoryConformance(
            makeRepository: { InMemoryRepository<Shelved>() }, makeEntity: Shelved.make
        ).basics()
        #expect(without.skipped.map(\.law) == [.equalIDsAreOneEntity])
        #expect(without.skipped.first?.reason.contains("makeEntityWithRespelledID") == true)

        var options = ConformanceOptions<InMemoryRepository<Shelved>>()
        options.makeEntityWithRespelledID = Shelved.respelled
        let with = try await RepositoryConformance(
            options: options, makeRepository: { InMemoryRepository<Shelved>() }, makeEntity: Shelved.make
        ).basics()
        #expect(with.passed.contains(.equalIDsAreOneEntity))

        var brokenOptions = ConformanceOptions<BrokenRepository<Shelved>>()
        brokenOptions.makeEntityWithRespelledID = Shelved.respelled
        let failure = try await #require(throws: ConformanceFailure.self) {
            try await RepositoryConformance(
                options: brokenOptions, makeRepository: { BrokenRepository<Shelved>(.distinguishesEqualIDs) },
                makeEntity: Shelved.make
            ).basics()
        }
        #expect(failure.brokenLaws == [.equalIDsAreOneEntity])
    }

    @Test func respellingThatIsNotAnotherSpellingIsASetupError() async throws {
        var options = ConformanceOptions<InMemoryRepository<Shelved>>()
        options.makeEntityWithRespelledID = Shelved.make
        let suite = RepositoryConformance(
            options: options, makeRepository: { InMemoryRepository<Shelved>() }, makeEntity: Shelved.make)
        let error = await #expect(throws: ConformanceSetupError.self) { try await suite.basics() }
        #expect(error?.message.contains("spell it another way") == true)
    }
}
