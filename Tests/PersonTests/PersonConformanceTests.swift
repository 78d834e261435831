import Foundation
import Repositories
import RepositoriesTesting
import Testing

@testable import Person

/// The example's store, `UserDefaultsRepository<Person>`, against the laws of `Repository`
/// with the example's own entity; each repository gets a suite of its own, removed after.
@Suite struct PersonConformanceTests {
    let suites = TestSuites()

    private var suite: RepositoryConformance<UserDefaultsRepository<Person>> {
        RepositoryConformance(
            makeRepository: { [suites] in
                UserDefaultsRepository<Person>(key: "person", defaults: suites.make())
            },
            makeEntity: { Person.make(index: $0, revision: $1) })
    }

    @Test func basics() async throws {
        defer { suites.removeAll() }
        let report = try await suite.basics()
        #expect(Set(report.passed) == Set(ConformanceArea.basics.laws), "\(report)")
        #expect(suites.count >= ConformanceArea.basics.laws.count)
    }

    @Test func ordering() async throws {
        defer { suites.removeAll() }
        let report = try await suite.ordering()
        #expect(Set(report.passed) == Set(ConformanceArea.ordering.laws), "\(report)")
    }

    @Test func queries() async throws {
        defer { suites.removeAll() }
        let report = try await suite.queries()
        #expect(Set(report.passed) == Set(ConformanceArea.queries.laws), "\(report)")
    }
}
