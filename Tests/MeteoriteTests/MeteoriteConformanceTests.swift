import Foundation
import Repositories
import RepositoriesSQLite
import RepositoriesTestSupport
import RepositoriesTesting
import Testing

@testable import Meteorite

/// The repository laws on `SQLiteRepository` with the example's own entity.
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

    @Test func basics() async throws {
        try await suite.basics()
    }

    @Test func batches() async throws {
        try await suite.batches()
    }
}
