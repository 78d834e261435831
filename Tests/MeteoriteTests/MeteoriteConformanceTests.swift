import Foundation
import Repositories
import RepositoriesSQLite
import RepositoriesTestSupport
import RepositoriesTesting
import Testing

@testable import Meteorite

/// The repository laws on `SQLiteRepository` with the example's own entity: the basics,
/// batches, ordering and queries (the article's filter runs on it), in the table the example
/// opens (binary) and, for batches, in a JSON table too.
@Suite struct MeteoriteConformanceTests {
    /// The example's table: the default codec, binary.
    private let suite: RepositoryConformance<SQLiteRepository<Meteorite>>
    /// A JSON table, whose encoder refuses the NaN mass that the binary codec keeps: a batch
    /// that holds it fails for real, which `failedBatchLeavesNothing` needs.
    private let jsonSuite: RepositoryConformance<SQLiteRepository<Meteorite>>

    init() throws {
        let directory = try TemporaryDirectory()
        var options = ConformanceOptions<SQLiteRepository<Meteorite>>()
        options.tearDown = { database in
            try await database.close()
            _ = directory  // keeps the directory until the suite is done with its databases
        }
        suite = RepositoryConformance(
            options: options,
            makeRepository: { try await SQLiteRepository<Meteorite>(fileURL: directory.file()) },
            makeEntity: Self.entity)
        options.makeUnencodableEntity = { index in
            var meteorite = Self.entity(index: index, revision: 0)
            meteorite.mass = .nan
            return meteorite
        }
        jsonSuite = RepositoryConformance(
            options: options,
            makeRepository: {
                try await SQLiteRepository<Meteorite>(
                    fileURL: directory.file(), options: SQLiteOptions(codec: .json))
            },
            makeEntity: Self.entity)
    }

    @Sendable private static func entity(index: Int, revision: Int) -> Meteorite {
        Meteorite(
            id: index, name: "Allan Hills \(84_000 + index)", recclass: revision % 2 == 0 ? "L6" : "H5",
            mass: Double(100 + revision) / 4, fall: index % 40 == 0 ? .fell : .found, year: 1976 + revision,
            geolocation: index % 6 == 0 ? nil : Meteorite.Geolocation(latitude: -76.72, longitude: 159.67))
    }

    @Test func basics() async throws { expectEveryLaw(of: .basics, in: try await suite.basics()) }
    @Test func ordering() async throws { expectEveryLaw(of: .ordering, in: try await suite.ordering()) }
    @Test func queries() async throws { expectEveryLaw(of: .queries, in: try await suite.queries()) }

    /// Every batch law in the example's binary table but `failedBatchLeavesNothing` (the
    /// binary codec stores a NaN, so no meteorite fails to encode), and every one in JSON.
    @Test func batches() async throws {
        expectEveryLaw(of: .batches, in: try await suite.batches(), except: [.failedBatchLeavesNothing])
        expectEveryLaw(of: .batches, in: try await jsonSuite.batches())
    }

    /// Every law of `area` but `skipped` was checked and held, and those were skipped.
    private func expectEveryLaw(
        of area: ConformanceArea, in report: ConformanceReport, except skipped: Set<ConformanceLaw> = []
    ) {
        #expect(Set(report.passed) == Set(area.laws).subtracting(skipped), "\(report)")
        #expect(Set(report.skipped.map(\.law)) == skipped, "\(report)")
    }
}
