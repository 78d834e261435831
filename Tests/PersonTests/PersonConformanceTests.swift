import Foundation
import Repositories
import RepositoriesTesting
import Testing

@testable import Person

/// The example's store, `UserDefaultsRepository<Person>`, against the laws of `Repository`
/// with the example's own entity; each repository gets a suite of its own, removed after.
///
/// The store keeps the whole collection as one JSON value, so every write rewrites it; the
/// batch laws (a batch is saved whole, a cancelled one all or nothing) and the concurrency
/// laws (no batch is ever seen torn) are the ones that matter most for it.
@Suite struct PersonConformanceTests {
    let suites = TestSuites()

    private var suite: RepositoryConformance<UserDefaultsRepository<Person>> {
        // Each write rewrites the collection through UserDefaults; a quarter of the default
        // load keeps the concurrency area to a few seconds on Linux.
        let options = ConformanceOptions<UserDefaultsRepository<Person>>(operationsPerTask: 250)
        return RepositoryConformance(
            options: options,
            makeRepository: { [suites] in
                UserDefaultsRepository<Person>(key: "person", defaults: suites.make())
            },
            makeEntity: { Person.make(index: $0, revision: $1) })
    }

    @Test func basics() async throws {
        defer { suites.removeAll() }
        expectEveryLaw(of: .basics, in: try await suite.basics())
    }

    /// Every batch law but `failedBatchLeavesNothing`, which needs a person the store cannot
    /// encode: a `Person` (a string, an integer, a UUID) always encodes, so no batch of people
    /// can be made to fail; `batchesAreNeverSeenTorn` covers atomicity under concurrency.
    @Test func batches() async throws {
        defer { suites.removeAll() }
        expectEveryLaw(of: .batches, in: try await suite.batches(), except: [.failedBatchLeavesNothing])
    }

    @Test func ordering() async throws {
        defer { suites.removeAll() }
        expectEveryLaw(of: .ordering, in: try await suite.ordering())
    }

    @Test func queries() async throws {
        defer { suites.removeAll() }
        expectEveryLaw(of: .queries, in: try await suite.queries())
    }

    @Test func concurrency() async throws {
        defer { suites.removeAll() }
        expectEveryLaw(of: .concurrency, in: try await suite.concurrency())
    }

    @Test func randomized() async throws {
        defer { suites.removeAll() }
        expectEveryLaw(of: .randomized, in: try await suite.randomized())
    }

    /// Every law of `area` but `skipped` was checked and held, and exactly `skipped` was
    /// skipped.
    private func expectEveryLaw(
        of area: ConformanceArea, in report: ConformanceReport, except skipped: Set<ConformanceLaw> = []
    ) {
        #expect(Set(report.passed) == Set(area.laws).subtracting(skipped), "\(report)")
        #expect(Set(report.skipped.map(\.law)) == skipped, "\(report)")
    }
}
