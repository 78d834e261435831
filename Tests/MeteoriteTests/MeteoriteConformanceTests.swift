import Foundation
import Repositories
import RepositoriesSQLite
import RepositoriesTestSupport
import RepositoriesTesting
import Testing

@testable import Meteorite

/// The repository laws on `SQLiteRepository` with the example's own entity: the basics,
/// batches, ordering and queries (the article's filter runs on it), nothing skipped.
@Suite struct MeteoriteConformanceTests {
    private let suite: RepositoryConformance<SQLiteRepository<Meteorite>>

    init() throws {
        let directory = try TemporaryDirectory()
        var options = ConformanceOptions<SQLiteRepository<Meteorite>>()
        options.tearDown = { database in
            try await database.close()
            _ = directory  // keeps the directory until the suite is done with its databases
        }
        options.makeUnencodableEntity = { index in
            var meteorite = Self.entity(index: index, revision: 0)
            meteorite.mass = .nan
            return meteorite
        }
        suite = RepositoryConformance(
            options: options,
            makeRepository: { try await SQLiteRepository<Meteorite>(fileURL: directory.file()) },
            makeEntity: Self.entity)
    }

    @Sendable private static func entity(index: Int, revision: Int) -> Meteorite {
        Meteorite(
            id: index, name: "Allan Hills \(84_000 + index)", recclass: revision % 2 == 0 ? "L6" : "H5",
            mass: Double(100 + revision) / 4, fall: index % 40 == 0 ? .fell : .found, year: 1976 + revision,
            geolocation: index % 6 == 0 ? nil : Meteorite.Geolocation(latitude: -76.72, longitude: 159.67))
    }

    @Test func basics() async throws { expectEveryLaw(of: .basics, in: try await suite.basics()) }
    @Test func batches() async throws { expectEveryLaw(of: .batches, in: try await suite.batches()) }
    @Test func ordering() async throws { expectEveryLaw(of: .ordering, in: try await suite.ordering()) }
    @Test func queries() async throws { expectEveryLaw(of: .queries, in: try await suite.queries()) }

    /// Every law of `area` was checked and held: none skipped (the NaN mass makes a batch
    /// fail for real).
    private func expectEveryLaw(of area: ConformanceArea, in report: ConformanceReport) {
        #expect(Set(report.passed) == Set(area.laws), "\(report)")
        #expect(report.skipped.isEmpty && report.notes.isEmpty, "\(report)")
    }
}
