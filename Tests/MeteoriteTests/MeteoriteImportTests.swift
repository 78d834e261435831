import Foundation
import Repositories
import RepositoriesSQLite
import RepositoriesTestSupport
import RepositoriesTesting
import Testing

@testable import Meteorite

/// The batched import into SQLite: each batch whole or not at all, and running it again
/// finishes the job without duplicates.
@Suite struct MeteoriteImportTests {
    private let directory: TemporaryDirectory
    private let meteorites = MeteoriteGenerator(seed: 3).generate(count: 10_500, withoutLocation: 1_680)

    init() throws {
        directory = try TemporaryDirectory()
    }

    private func openDatabase(_ options: SQLiteOptions = SQLiteOptions()) async throws
        -> SQLiteRepository<Meteorite>
    {
        try await SQLiteRepository<Meteorite>(fileURL: directory.file("meteorites.sqlite"), options: options)
    }

    @MainActor @Test func savesEveryMeteoriteInBatchesReportingProgress() async throws {
        let database = try await openDatabase()
        let spy = SpyRepository(database)
        var progress: [Int] = []
        let report = try await MeteoriteImport(database: spy).run(meteorites) { progress.append($0) }

        #expect(report.saved == 10_500)
        #expect(report.batches == 6)
        #expect(progress == [2_000, 4_000, 6_000, 8_000, 10_000, 10_500])
        #expect(
            spy.calls(to: .saveContentsOf).map(\.entities.count) == [2_000, 2_000, 2_000, 2_000, 2_000, 500])
        #expect(try await database.fetchAll() == meteorites)
        try await database.close()
    }

    @Test func runningItTwiceLeavesEachMeteoriteOnce() async throws {
        let database = try await openDatabase()
        let importer = MeteoriteImport(database: database)
        _ = try await importer.run(meteorites)
        _ = try await importer.run(meteorites)
        #expect(try await database.count() == meteorites.count)
        #expect(try await database.fetch(.geolocated).count == meteorites.count - 1_680)
        try await database.close()
    }

    @Test func aFailedBatchWritesNothingAndARerunFinishes() async throws {
        // A JSON table: JSON cannot hold a NaN mass (the binary codec, the default, keeps it).
        let database = try await openDatabase(SQLiteOptions(codec: .json))
        var broken = meteorites
        broken[5_000].mass = .nan  // the third batch fails to encode

        let error = await #expect(throws: RepositoryError.self) {
            try await MeteoriteImport(database: database).run(broken)
        }
        #expect(error?.code == .encodingFailed)
        #expect(error?.record == "batch 3")
        #expect(error?.reason.contains("meteorites 4,001 to 6,000") == true)
        #expect(try await database.count() == 4_000)
        #expect(try await database.fetchAll() == Array(meteorites.prefix(4_000)))

        _ = try await MeteoriteImport(database: database).run(meteorites)
        #expect(try await database.fetchAll() == meteorites)
        try await database.close()
    }

    @Test func aBatchTheDatabaseRefusesLeavesTheBatchesBeforeIt() async throws {
        let database = try await openDatabase()
        let flaky = FaultInjectingRepository(database)
        flaky.failNext(of: .saveContentsOf, with: RepositoryError.unavailable("disk full"))
        let importer = MeteoriteImport(database: flaky, batchSize: 4_000)

        let error = await #expect(throws: RepositoryError.self) { try await importer.run(meteorites) }
        #expect(error?.code == .unavailable)
        #expect(try await database.count() == 0)

        _ = try await importer.run(meteorites)
        #expect(try await database.count() == meteorites.count)
        try await database.close()
    }
}
