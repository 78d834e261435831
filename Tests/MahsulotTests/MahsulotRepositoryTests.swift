import ExampleSupport
import Foundation
import Repositories
import RepositoriesTestSupport
import RepositoriesTesting
import Testing

@testable import Mahsulot

/// The example's real stack: the switched API over a `FileRepository` in a temporary
/// directory.
@Suite struct MahsulotRepositoryTests {
    private let directory: TemporaryDirectory
    private let fileURL: URL
    private let server = InMemoryRepository(Mahsulot.namunalar)
    private let network = NetworkSwitch()
    private let api: SwitchedRepository<InMemoryRepository<Mahsulot>>
    private let mirrorFailures = MirrorFailures()

    init() throws {
        directory = try TemporaryDirectory()
        fileURL = directory.file("mahsulotlar.journal")
        api = SwitchedRepository(server, network: network, name: "The test API")
    }

    @Test func anOnlineLoadMirrorsEveryProductIntoTheFile() async throws {
        let products = try await MahsulotRepository.make(
            remote: api, fileURL: fileURL, onTierFailure: mirrorFailures.record)
        #expect(try await products.fetchAll() == Mahsulot.namunalar)
        #expect(try await products.local.fetchAll() == Mahsulot.namunalar)
        #expect(mirrorFailures.all.isEmpty)
        try await products.local.close()
    }

    @Test func aFailingFileIsReportedAndTheAPIsAnswerStillReturned() async throws {
        let products = try await MahsulotRepository.make(
            remote: api, fileURL: fileURL, onTierFailure: mirrorFailures.record)
        try await products.local.close()

        #expect(try await products.fetchAll() == Mahsulot.namunalar)

        let failures = mirrorFailures.all
        #expect(!failures.isEmpty)
        #expect(failures.allSatisfy { $0.operation == .fetchAll })
        #expect(throws: StoryFailure.self) { try mirrorFailures.check("mahsulotlar.journal") }
    }

    @Test func anOfflineSaveThrowsUnavailableAndChangesNeitherTier() async throws {
        let products = try await MahsulotRepository.make(
            remote: api, fileURL: fileURL, onTierFailure: mirrorFailures.record)
        _ = try await products.fetchAll()
        network.goOffline()
        var changed = Mahsulot.namunalar[0]
        changed.narxi = 4_500
        let added = Mahsulot(id: 6, nomi: "Olma", narxi: 9_000, tavsifi: "1 kg")

        await #expect {
            try await products.save(changed)
        } throws: { error in
            (error as? RepositoryError)?.code == .unavailable
        }
        await #expect {
            try await products.save(contentsOf: [changed, added])
        } throws: { error in
            (error as? RepositoryError)?.code == .unavailable
        }

        #expect(try await products.local.fetchAll() == Mahsulot.namunalar)
        #expect(try await server.fetchAll() == Mahsulot.namunalar)
        try await products.local.close()
        let reopened = try await FileRepository<Mahsulot>(fileURL: fileURL)
        #expect(try await reopened.fetchAll() == Mahsulot.namunalar)
        try await reopened.close()
    }

    @Test func aReopenedFileServesTheSameProductsOfflineMarkedAsLocal() async throws {
        let online = try await MahsulotRepository.make(
            remote: api, fileURL: fileURL, onTierFailure: mirrorFailures.record)
        _ = try await online.fetchAll()
        try await online.local.close()

        network.goOffline()
        let offline = try await MahsulotRepository.make(
            remote: api, fileURL: fileURL, onTierFailure: mirrorFailures.record)
        #expect(try await offline.fetchAll() == Mahsulot.namunalar)

        var answers: [Sourced<[Mahsulot]>] = []
        await #expect {
            for try await answer in offline.valuesAll() { answers.append(answer) }
        } throws: { error in
            (error as? RepositoryError)?.code == .unavailable
        }
        #expect(answers.map(\.origin) == [.local])
        #expect(answers.first?.value == Mahsulot.namunalar)
        #expect(network.requests == 1)
        try await offline.local.close()
    }
}
