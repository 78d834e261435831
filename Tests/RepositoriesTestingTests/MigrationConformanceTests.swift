import Repositories
import RepositoriesTesting
import Testing

/// The migration area's own tests: a store that migrates correctly keeps every law, and
/// each deliberately broken one is caught by the law that names its defect.
@Suite struct MigrationConformanceTests {
    func suite(_ defect: BrokenMigrationLocation.Defect?) -> RepositoryConformance<
        InMemoryRepository<ConformanceEntity>
    > {
        var options = ConformanceOptions<InMemoryRepository<ConformanceEntity>>()
        options.makeMigrationStoreLocation = { BrokenMigrationLocation(defect: defect) }
        return RepositoryConformance(options: options, makeRepository: { InMemoryRepository() })
    }

    @Test func aStoreThatMigratesCorrectlyKeepsEveryLaw() async throws {
        let report = try await suite(nil).migrations()
        #expect(Set(report.passed) == Set(ConformanceArea.migrations.laws), "\(report)")
        #expect(report.skipped.isEmpty && report.notes.isEmpty, "\(report)")
    }

    @Test(arguments: [
        (BrokenMigrationLocation.Defect.dropsAnEntityWhenUpgrading, ConformanceLaw.upgradesFollowTheChain),
        (.upgradesFromVersionOneAlways, .upgradesFollowTheChain),
        (.upgradesOnEveryOpen, .upgradeRunsOnce),
        (.losesWritesAfterUpgrade, .writesAfterUpgradeSurviveReopen),
        (.readsNewerDataAsEmpty, .newerDataIsRefusedAndKept),
        (.deletesNewerData, .newerDataIsRefusedAndKept),
        (.stampsVersionOne, .dataWrittenBeforeMigrationsReadsUnchanged),
    ])
    func eachDefectIsCaughtByTheLawThatNamesIt(
        defect: BrokenMigrationLocation.Defect, law: ConformanceLaw
    ) async throws {
        let failure = try await #require(throws: ConformanceFailure.self) {
            try await suite(defect).migrations()
        }
        #expect(failure.brokenLaws.contains(law), "\(defect) broke \(failure.brokenLaws)")
        let violation = try #require(failure.violations.first { $0.law == law })
        #expect(violation.operations.contains { $0.hasPrefix("open at version") }, "the steps are listed")
    }

    @Test func aStoreThatOnlyUpgradesOnEveryOpenBreaksThatLawAlone() async throws {
        let failure = try await #require(throws: ConformanceFailure.self) {
            try await suite(.upgradesOnEveryOpen).migrations()
        }
        #expect(failure.brokenLaws == [.upgradeRunsOnce])
        #expect(failure.description.contains("ran upgrades"))
    }

    @Test func aDowngradeThatErasesTheDataIsNamed() async throws {
        let failure = try await #require(throws: ConformanceFailure.self) {
            try await suite(.deletesNewerData).migrations()
        }
        #expect(failure.brokenLaws == [.newerDataIsRefusedAndKept])
        #expect(failure.description.contains("deleteAll() at version 2 over data of version 3 succeeded"))
    }

    @Test func withoutALocationTheAreaIsSkippedAndItsMethodFails() async throws {
        let suite = RepositoryConformance(makeRepository: { InMemoryRepository<ConformanceEntity>() })
        let error = await #expect(throws: ConformanceSetupError.self) { try await suite.migrations() }
        #expect(error?.message.contains("makeMigrationStoreLocation") == true)
        let report = try await suite.run()
        #expect(Set(report.skipped.map(\.law)).isSuperset(of: ConformanceArea.migrations.laws))
    }
}
