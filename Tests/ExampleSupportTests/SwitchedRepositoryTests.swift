import ExampleSupport
import Repositories
import RepositoriesTesting
import Testing

private func item(_ index: Int) -> ConformanceEntity { .make(index: index, revision: 0) }

@Suite struct SwitchedRepositoryTests {
    @Test func keepsEveryLawWhileOnline() async throws {
        try await RepositoryConformance(makeRepository: {
            SwitchedRepository(
                InMemoryRepository<ConformanceEntity>(), network: NetworkSwitch(), name: "The test API")
        }).run()
    }

    @Test func offlineEveryCallFailsAsUnavailableWithoutReachingTheRemote() async throws {
        let spy = SpyRepository(InMemoryRepository<ConformanceEntity>([item(1)]))
        let network = NetworkSwitch(online: false)
        let remote = SwitchedRepository(spy, network: network, name: "The test API")
        let calls: [(String, () async throws -> Void)] = [
            ("fetch(id:)", { _ = try await remote.fetch(id: 1) }),
            ("fetchAll", { _ = try await remote.fetchAll() }),
            ("fetch(ids:)", { _ = try await remote.fetch(ids: [1]) }),
            ("fetch(query)", { _ = try await remote.fetch(Query<ConformanceEntity>()) }),
            ("count", { _ = try await remote.count() }),
            ("save", { try await remote.save(item(2)) }),
            ("save(contentsOf:)", { try await remote.save(contentsOf: [item(3)]) }),
            ("delete(id:)", { try await remote.delete(id: 1) }),
            ("delete(ids:)", { try await remote.delete(ids: [1]) }),
            ("deleteAll", { try await remote.deleteAll() }),
        ]
        for (name, call) in calls {
            let error = await #expect(throws: RepositoryError.self, "\(name)") { try await call() }
            #expect(error?.code == .unavailable, "\(name)")
            #expect(error?.description.contains("The test API cannot be reached") == true, "\(name)")
        }
        #expect(spy.calls.isEmpty)
        #expect(network.refused == calls.count)
        #expect(network.requests == 0)
    }

    @Test func theSwitchTakesEffectOnTheNextCall() async throws {
        let network = NetworkSwitch()
        let remote = SwitchedRepository(
            InMemoryRepository<ConformanceEntity>([item(1)]), network: network, name: "The test API")
        #expect(try await remote.fetch(id: 1) != nil)
        network.goOffline()
        #expect(!network.isOnline)
        await #expect(throws: RepositoryError.self) { try await remote.fetch(id: 1) }
        network.goOnline()
        #expect(try await remote.count() == 1)
        #expect(network.requests == 2)
        #expect(network.refused == 1)
    }

    @Test func theRemoteComposesAsTheRemoteOfAFallback() async throws {
        let remote = ExampleRemote<ConformanceEntity>(
            options: ExampleOptions(), resource: "items", seed: [item(1), item(2)], latency: .zero)
        let local = InMemoryRepository<ConformanceEntity>()
        let items = remote.repository.fallback(to: local)
        #expect(try await items.fetchAll().map(\.id) == [1, 2])
        remote.network.goOffline()
        #expect(try await items.fetchAll().map(\.id) == [1, 2])
        #expect(try await local.count() == 2)
        #expect(try await remote.server?.count() == 2)
        #expect(remote.origin == "the simulated items API")
    }

    @Test func offlineOptionStartsTheSwitchOff() {
        var options = ExampleOptions()
        options.offline = true
        let remote = ExampleRemote<ConformanceEntity>(options: options, resource: "items", seed: [])
        #expect(!remote.network.isOnline)
    }

    @Test func anAPIURLMakesAnHTTPRemoteWithNoSimulatedServer() throws {
        let options = try ExampleOptions.parse(["--api", "http://127.0.0.1:8080/v1"])
        let remote = ExampleRemote<ConformanceEntity>(options: options, resource: "items", seed: [item(1)])
        #expect(remote.server == nil)
        #expect(remote.origin == "http://127.0.0.1:8080/v1/items")
    }
}
