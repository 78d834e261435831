import ExampleSupport
import Foundation
import Repositories
import RepositoriesTestSupport
import RepositoriesTesting
import Testing

@testable import Mahsulot

/// The example's real stack: the switched API, and the device's journal and outbox in a
/// temporary directory.
@Suite struct MahsulotRepositoryTests {
    private let directory: TemporaryDirectory
    private let server = InMemoryRepository(Mahsulot.namunalar)
    private let network = NetworkSwitch()
    private let api: SwitchedRepository<InMemoryRepository<Mahsulot>>
    private let newPrice: Mahsulot = {
        var changed = Mahsulot.namunalar[0]
        changed.narxi = 4_500
        return changed
    }()

    init() throws {
        directory = try TemporaryDirectory()
        api = SwitchedRepository(server, network: network, name: "The test API")
    }

    private func openFiles() async throws -> DeviceFiles<Mahsulot> {
        try await DeviceFiles(in: directory.url, name: "mahsulotlar")
    }

    @Test func anOnlineSyncBringsEveryProductIntoTheFile() async throws {
        let files = try await openFiles()
        let products = MahsulotRepository.make(remote: api, files: files, automaticSync: nil)

        try await products.sync()

        #expect(try await files.local.fetch(Query<Mahsulot>().sorted(by: \.id)) == Mahsulot.namunalar)
        #expect(try await files.outbox.changes().isEmpty)
        try await files.close()
    }

    @Test func anOfflineSaveReturnsIsReadAtOnceAndWaitsInTheOutbox() async throws {
        let files = try await openFiles()
        let products = MahsulotRepository.make(remote: api, files: files, automaticSync: nil)
        try await products.sync()
        network.goOffline()

        try await products.save(newPrice)

        #expect(try await products.fetch(id: 1) == newPrice)
        let waiting = try await files.outbox.changes()
        #expect(waiting.map(\.id) == [1])
        #expect(waiting.first?.base == Mahsulot.namunalar[0])
        #expect(try await server.fetch(id: 1) == Mahsulot.namunalar[0])
        #expect(network.refused == 0, "a save does not wait for the network")
        try await files.close()
    }

    @Test func theAutomaticSyncSendsAnOfflineSaveOnceTheNetworkIsBack() async throws {
        let files = try await openFiles()
        let products = MahsulotRepository.make(remote: api, files: files)
        try await products.sync()
        network.goOffline()
        try await products.save(newPrice)

        network.goOnline()
        try await products.waitUntilSent()

        #expect(try await server.fetch(id: 1) == newPrice)
        #expect(try await files.outbox.changes().isEmpty)
        products.stopAutomaticSync()
        try await products.sync()  // waits for an automatic sync still pulling
        try await files.close()
    }

    /// The device's price and the office's description of the same product, both changed
    /// while the device was offline: the sync keeps both, and a record of the conflict.
    @Test func anOfflinePriceAndTheAPIsNewDescriptionAreBothKeptAndTheConflictRecorded() async throws {
        let files = try await openFiles()
        let products = MahsulotRepository.make(remote: api, files: files, automaticSync: nil)
        try await products.sync()
        network.goOffline()
        try await products.save(newPrice)
        var described = Mahsulot.namunalar[0]
        described.tavsifi = "Tandir noni"
        try await server.save(described)
        network.goOnline()

        let report = try await products.sync()

        var merged = newPrice
        merged.tavsifi = "Tandir noni"
        #expect(try await server.fetch(id: 1) == merged)
        #expect(try await products.fetch(id: 1) == merged)
        #expect(report.conflictedIDs == [1])
        let conflicts = try await products.snapshot(Query()).conflicts
        #expect(conflicts.map(\.entityID) == [1])
        #expect(
            conflicts.first?.resolution
                == .mergedByField(localFields: ["narxi"], remoteFields: ["tavsifi"], tiedFields: [:]))
        #expect(conflicts.first?.result == merged)
        try await files.close()
    }

    @Test func aSaveMadeOfflineSurvivesARestartAndGoesOutWithTheNextSync() async throws {
        let files = try await openFiles()
        try await MahsulotRepository.make(remote: api, files: files, automaticSync: nil).sync()
        network.goOffline()
        try await MahsulotRepository.make(remote: api, files: files, automaticSync: nil).save(newPrice)
        try await files.close()

        let reopened = try await openFiles()
        let products = MahsulotRepository.make(remote: api, files: reopened, automaticSync: nil)
        #expect(try await products.fetch(id: 1) == newPrice)
        network.goOnline()
        try await products.sync()

        #expect(try await server.fetch(id: 1) == newPrice)
        #expect(try await reopened.outbox.changes().isEmpty)
        try await reopened.close()
    }

    @Test func waitingForAChangeThatCannotGoOutGivesUpWithAStoryFailure() async throws {
        let files = try await openFiles()
        let products = MahsulotRepository.make(remote: api, files: files, automaticSync: nil)
        network.goOffline()
        try await products.save(newPrice)

        let failure = await #expect(throws: StoryFailure.self) {
            try await products.waitUntilSent(limit: .milliseconds(50))
        }
        #expect(failure?.description.contains("did not send the waiting changes") == true)
        try await files.close()
    }

    @Test func waitingOnAClosedOutboxFailsWithAStoryFailureNamingIt() async throws {
        let files = try await openFiles()
        let products = MahsulotRepository.make(remote: api, files: files, automaticSync: nil)
        try await files.close()

        let failure = await #expect(throws: StoryFailure.self) {
            try await products.waitUntilSent(limit: .seconds(60))
        }
        #expect(failure?.description.contains("mahsulotlar.outbox can no longer be read") == true)
    }
}
