import ExampleSupport
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
    private let mirrorFailures = MirrorFailures()

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
        let viewModel = MeteoriteViewModel(
            dataRepo: DataRepository.make(api: api, database: database, onTierFailure: mirrorFailures.record))

        await viewModel.initFetch()

        #expect(viewModel.meteoriteList == meteorites.filter(\.isGeolocated))
        #expect(viewModel.alertMessage == nil)
        #expect(api.injectedFaultCount == 1)
        try await database.close()
    }

    @Test func bothFailingAlertsWithTheAPIsErrorAndKeepsTheList() async throws {
        let database = try await SQLiteRepository<Meteorite>(fileURL: directory.file("meteorites.sqlite"))
        let api = FaultInjectingRepository(InMemoryRepository(meteorites))
        let viewModel = MeteoriteViewModel(
            dataRepo: DataRepository.make(api: api, database: database, onTierFailure: mirrorFailures.record))
        await viewModel.initFetch()
        #expect(viewModel.numberOfCells == 7)
        try await database.close()

        api.failNext(of: .fetchQuery, with: offline)
        await viewModel.initFetch()  // the closed database fails too

        #expect(viewModel.alertMessage == offline.localizedDescription)
        #expect(viewModel.numberOfCells == 7)
        #expect(!viewModel.isLoading)
    }

    @Test func anEmptyDatabaseLetsTheAPIsErrorThrough() async throws {
        let database = try await SQLiteRepository<Meteorite>(fileURL: directory.file("meteorites.sqlite"))
        let api = FaultInjectingRepository(InMemoryRepository(meteorites))
        api.failNext(of: .fetchQuery, with: offline)
        let viewModel = MeteoriteViewModel(
            dataRepo: DataRepository.make(api: api, database: database, onTierFailure: mirrorFailures.record))

        await viewModel.initFetch()

        #expect(viewModel.meteoriteList.isEmpty)
        #expect(viewModel.alertMessage?.hasPrefix("unavailable: The test API is offline") == true)
        try await database.close()
    }

    /// A cancelled fetch whose repository throws its own error (as `RemoteFirstRepository`
    /// rethrows the API's) raises no alert.
    @Test func aCancelledFetchThatThrowsAnotherErrorRaisesNoAlert() async {
        let gate = Gate()
        var dataRepo = AnyRepository<Meteorite, Int>.unimplemented("dataRepo")
        dataRepo.onFetchQuery = { [offline, meteorites] query in
            await gate.pass()
            if Task.isCancelled { throw offline }
            return try query.apply(to: meteorites)
        }
        let viewModel = MeteoriteViewModel(dataRepo: dataRepo)
        let fetch = Task { await viewModel.initFetch() }
        await gate.waitForArrival()
        fetch.cancel()
        gate.open()
        await fetch.value

        #expect(viewModel.alertMessage == nil)
        #expect(viewModel.meteoriteList.isEmpty)
        #expect(!viewModel.isLoading)
    }

    /// Two fetches at once (`.task` and `.refreshable`), the newer answering first: the
    /// older, slower answer changes nothing when it comes.
    @Test func anOlderFetchAnsweringLastChangesNothing() async {
        let gates = Gates(count: 2)
        let (older, newer) = (gates[0], gates[1])
        let viewModel = MeteoriteViewModel(dataRepo: twoFetches(at: gates))
        let first = Task { await viewModel.initFetch() }
        await older.waitForArrival()
        let second = Task { await viewModel.initFetch() }
        await newer.waitForArrival()

        newer.open()
        await second.value
        #expect(viewModel.numberOfCells == 7)
        #expect(!viewModel.isLoading)

        older.open()
        await first.value
        #expect(viewModel.numberOfCells == 7)
        #expect(viewModel.alertMessage == nil)
        #expect(!viewModel.isLoading)
    }

    /// Two fetches at once, the older ending first: it shows nothing, and the spinner turns
    /// until the newer ends.
    @Test func anOlderFetchEndingFirstLeavesTheNewerOneLoading() async {
        let gates = Gates(count: 2)
        let (older, newer) = (gates[0], gates[1])
        let viewModel = MeteoriteViewModel(dataRepo: twoFetches(at: gates))
        let first = Task { await viewModel.initFetch() }
        await older.waitForArrival()
        let second = Task { await viewModel.initFetch() }
        await newer.waitForArrival()

        older.open()
        await first.value
        #expect(viewModel.isLoading)
        #expect(viewModel.alertMessage == nil)

        newer.open()
        await second.value
        #expect(viewModel.numberOfCells == 7)
        #expect(!viewModel.isLoading)
    }

    /// A data repository whose first fetch waits at `gates[0]` and then fails, and whose
    /// second waits at `gates[1]` and then answers the test's meteorites.
    private func twoFetches(at gates: Gates) -> AnyRepository<Meteorite, Int> {
        var dataRepo = AnyRepository<Meteorite, Int>.unimplemented("dataRepo")
        dataRepo.onFetchQuery = { [offline, meteorites] query in
            if await gates.pass() == 0 { throw offline }
            return try query.apply(to: meteorites)
        }
        return dataRepo
    }
}
