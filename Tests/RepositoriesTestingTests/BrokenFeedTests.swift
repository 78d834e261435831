import Repositories
import RepositoriesTesting
import Testing

/// ChangeFeedConformance's own tests: each deliberately broken feed is caught by the law
/// that names its defect, a correct one by none, and a failure says how to reproduce it.
@Suite struct BrokenFeedTests {
    typealias Feed = BrokenFeed<ConformanceEntity>

    /// The suite over feeds with `defect`, with every hook: expiring cursors forgets the
    /// in-memory store's deletions, reopening rebuilds it with what it held.
    func suite(_ defect: Feed.Defect, seed: UInt64 = 7) -> ChangeFeedConformance<Feed> {
        ChangeFeedConformance(
            options: ChangeFeedConformanceOptions(
                expireCursors: { $0.base.forgetDeletions() }, reopen: { try await $0.reopened() }, seed: seed),
            makeRepository: { Feed(defect) })
    }

    @Test func aCorrectFeedKeepsEveryLaw() async throws {
        let report = try await suite(.none).run()
        #expect(report.passed == ChangeFeedLaw.allCases)
        #expect(report.skipped.isEmpty)
        // A rebuilt store cannot answer old cursors; it says so, which the law allows.
        #expect(report.notes.contains { $0.contains("expired") })
    }

    @Test func lawsWithoutTheirHookAreSkippedNotPassed() async throws {
        let report = try await ChangeFeedConformance(makeRepository: { Feed(.none) }).run()
        let skipped = Set(report.skipped.map(\.law))
        #expect(skipped == [.forgottenDeletionsExpireCursors, .cursorSurvivesReopen])
        #expect(skipped.isDisjoint(with: report.passed))
        #expect(report.passed.count == ChangeFeedLaw.allCases.count - 2)
        #expect(report.description.contains("expireCursors"))
    }

    /// Each defect with exactly the laws it breaks.
    static let defectsAndLaws: [(Feed.Defect, Set<ChangeFeedLaw>)] = [
        (.repeatsAnID, [.pageHoldsEachIDOnce]),
        (.ignoresLimit, [.pageRespectsLimit, .nonPositiveLimitIsRejected]),
        (.resendsUntouchedEntities, [.untouchedEntitiesStayOut, .lastPageHasNoMore]),
        // The subset law reads from nil twice (a closure subset, then a condition), which a
        // feed that consumes its pages answers from where the first read ended.
        (
            .consumesPages,
            [.rereadPageIsHarmless, .forgottenDeletionsExpireCursors, .subsetPagesKeepTheSubset]
        ),
        (.neverExpires, [.unissuedCursorExpires, .forgottenDeletionsExpireCursors, .cursorSurvivesReopen]),
        (
            .treatsUnknownCursorsAsCurrent,
            [.unissuedCursorExpires, .forgottenDeletionsExpireCursors, .cursorSurvivesReopen]
        ),
        (.acceptsNonPositiveLimit, [.nonPositiveLimitIsRejected]),
        (.losesConcurrentWrites, [.concurrentWritesAreNeverSkipped]),
        (.filtersSubsetPages, [.subsetPagesKeepTheSubset]),
    ]

    @Test(arguments: defectsAndLaws)
    func eachDefectBreaksExactlyTheLawsThatNameIt(defect: Feed.Defect, laws: Set<ChangeFeedLaw>) async throws
    {
        let failure = try await #require(throws: ChangeFeedConformanceFailure.self) {
            try await suite(defect).run()
        }
        #expect(Set(failure.brokenLaws) == laws, "\(failure)")
    }

    @Test func aFeedThatSkipsAChangeBreaksEveryLawThatComparesTheMirror() async throws {
        let failure = try await #require(throws: ChangeFeedConformanceFailure.self) {
            try await suite(.skipsAChange).run()
        }
        let broken = Set(failure.brokenLaws)
        #expect(
            broken.isSuperset(of: [
                .readFromNilDeliversEveryEntity, .changesAfterCursorComeBack, .rereadPageIsHarmless,
                .cursorSurvivesCoding, .concurrentWritesAreNeverSkipped, .cursorSurvivesReopen,
                .subsetPagesKeepTheSubset,
            ]), "\(failure)")
        #expect(!broken.contains(.pageHoldsEachIDOnce) && !broken.contains(.pageRespectsLimit))
        let violation = try #require(failure.violations.first { $0.law == .readFromNilDeliversEveryEntity })
        #expect(violation.message.contains("lacks"))
    }

    @Test func aFeedThatNeverEndsIsCaughtByLastPageHasNoMore() async throws {
        let failure = try await #require(throws: ChangeFeedConformanceFailure.self) {
            try await suite(.alwaysHasMore).check([.lastPageHasNoMore])
        }
        #expect(failure.brokenLaws == [.lastPageHasNoMore])
        #expect(failure.violations[0].message.contains("on an empty store"))
        // A read that never ends stops within a bound the writes set, and says why.
        let endless = try await #require(throws: ChangeFeedConformanceFailure.self) {
            try await suite(.alwaysHasMore).check([.readFromNilDeliversEveryEntity])
        }
        let violation = try #require(endless.violations.first { $0.law == .lastPageHasNoMore })
        #expect(violation.message.contains("still said hasMore == true"))
    }

    @Test func aRepeatedIDNamesThePageAndTheCursors() async throws {
        let failure = try await #require(throws: ChangeFeedConformanceFailure.self) {
            try await suite(.repeatsAnID).check([.pageHoldsEachIDOnce])
        }
        let violation = try #require(failure.violations.first)
        #expect(violation.message.contains("more than once in one page"))
        #expect(violation.operations.contains { $0.hasPrefix("changes(since: nil, limit: 100) → saved [") })
        #expect(violation.seed == nil)
    }

    @Test func aPageBrokenUnderAnotherLawIsReportedUnderItsOwn() async throws {
        let failure = try await #require(throws: ChangeFeedConformanceFailure.self) {
            try await suite(.ignoresLimit).check([.readFromNilDeliversEveryEntity])
        }
        let violation = try #require(failure.violations.first)
        #expect(failure.brokenLaws == [.pageRespectsLimit])
        #expect(violation.message.contains("found while checking readFromNilDeliversEveryEntity"))
    }

    @Test func aLostConcurrentWriteShowsTheSeedThatReproducesIt() async throws {
        let failure = try await #require(throws: ChangeFeedConformanceFailure.self) {
            try await suite(.losesConcurrentWrites, seed: 11).check([.concurrentWritesAreNeverSkipped])
        }
        let violation = try #require(failure.violations.first)
        #expect(violation.seed == 11)
        #expect(failure.description.contains("REPOSITORY_CONFORMANCE_SEED=11"))
        #expect(violation.operations.contains { $0.contains("8 tasks made 1200 writes") })
    }

    @Test func aFeedThatIsNotEmptyAtStartIsReported() async throws {
        let suite = ChangeFeedConformance(makeRepository: {
            InMemoryRepository([ConformanceEntity.make(index: 500, revision: 0)])
        })
        let failure = try await #require(throws: ChangeFeedConformanceFailure.self) {
            try await suite.check([.readFromNilDeliversEveryEntity, .cursorSurvivesCoding])
        }
        #expect(failure.violations.count == 2)
        #expect(failure.violations.allSatisfy { $0.message.contains("must return an empty one") })
    }

    @Test func aPageLimitBelowOneIsASetupError() async throws {
        var options = ChangeFeedConformanceOptions<Feed>()
        options.pageLimit = 0
        let suite = ChangeFeedConformance(options: options, makeRepository: { Feed(.none) })
        let error = await #expect(throws: ConformanceSetupError.self) { try await suite.run() }
        #expect(error?.message.contains("pageLimit") == true)
    }

    @Test func eachBrokenLawIsReportedAtTheCallersLine() async {
        let expectedLine = #line + 2
        let reported = await capturingTestFailures {
            await suite(.acceptsNonPositiveLimit, seed: 3).expectConformance()
        }
        #expect(reported.count == 1, "\(reported)")
        #expect(reported.allSatisfy { $0.line == expectedLine && $0.fileID == #fileID })
        #expect(reported.first?.message.contains("ChangeFeedConformance (seed 3)") == true)
        #expect(reported.first?.message.contains("nonPositiveLimitIsRejected") == true)
    }
}
