import Foundation
import Repositories
import RepositoriesSQLite
import RepositoriesTestSupport
import RepositoriesTesting
import Testing

@testable import Meteorite

/// The view model's state (`meteoriteList`, `isLoading`, `alertMessage`) with doubles for
/// the API and a real SQLite database beside it.
@MainActor @Suite struct MeteoriteViewModelTests {
    private let offline = RepositoryError.unavailable("The test API is offline")
    private let meteorites = (1...10).map { Meteorite.sample(id: $0, located: $0 % 3 != 0) }
    private let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    @Test func listsOnlyTheGeolocatedMeteoritesAndStopsLoading() async {
        let viewModel = MeteoriteViewModel(dataRepo: InMemoryRepository(meteorites))
        await viewModel.initFetch()
        #expect(viewModel.meteoriteList == meteorites.filter(\.isGeolocated))
        #expect(viewModel.numberOfCells == 7)
        #expect(!viewModel.isLoading)
        #expect(viewModel.alertMessage == nil)
    }

    @Test func isLoadingIsTrueDuringTheFetch() async {
        let gate = Gate()
        var dataRepo = AnyRepository<Meteorite, Int>.unimplemented("dataRepo")
        dataRepo.onFetchQuery = { [meteorites] query in
            await gate.pass()
            return try query.apply(to: meteorites)
        }
        let viewModel = MeteoriteViewModel(dataRepo: dataRepo)
        let fetch = Task { await viewModel.initFetch() }
        await gate.waitForArrival()
        #expect(viewModel.isLoading)
        #expect(viewModel.meteoriteList.isEmpty)
        gate.open()
        await fetch.value
        #expect(!viewModel.isLoading)
        #expect(viewModel.numberOfCells == 7)
    }

    @Test func aFailingAPIIsAnsweredBySQLite() async throws {
        let database = try await SQLiteRepository<Meteorite>(fileURL: directory.file("meteorites.sqlite"))
        try await database.save(contentsOf: meteorites)
        let api = FaultInjectingRepository(InMemoryRepository<Meteorite>())
        api.failNext(of: .fetchQuery, with: offline)
        let viewModel = MeteoriteViewModel(dataRepo: DataRepository.make(api: api, database: database))

        await viewModel.initFetch()

        #expect(viewModel.meteoriteList == meteorites.filter(\.isGeolocated))
        #expect(viewModel.alertMessage == nil)
        #expect(api.injectedFaultCount == 1)
        try await database.close()
    }

    @Test func bothFailingAlertsWithTheAPIsErrorAndKeepsTheList() async throws {
        let database = try await SQLiteRepository<Meteorite>(fileURL: directory.file("meteorites.sqlite"))
        let api = FaultInjectingRepository(InMemoryRepository(meteorites))
        let viewModel = MeteoriteViewModel(dataRepo: DataRepository.make(api: api, database: database))
        await viewModel.initFetch()
        #expect(viewModel.numberOfCells == 7)
        try await database.close()

        api.failNext(of: .fetchQuery, with: offline)
        await viewModel.initFetch()  // the closed database fails too

        #expect(viewModel.alertMessage == String(describing: offline))
        #expect(viewModel.numberOfCells == 7)
        #expect(!viewModel.isLoading)
    }

    @Test func anEmptyDatabaseLetsTheAPIsErrorThrough() async throws {
        let database = try await SQLiteRepository<Meteorite>(fileURL: directory.file("meteorites.sqlite"))
        let api = FaultInjectingRepository(InMemoryRepository(meteorites))
        api.failNext(of: .fetchQuery, with: offline)
        let viewModel = MeteoriteViewModel(dataRepo: DataRepository.make(api: api, database: database))

        await viewModel.initFetch()

        #expect(viewModel.meteoriteList.isEmpty)
        #expect(viewModel.alertMessage?.hasPrefix("unavailable: The test API is offline") == true)
        try await database.close()
    }
}
