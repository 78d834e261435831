import Foundation
import Repositories
import RepositoriesHTTP
import RepositoriesTestSupport
import RepositoriesTesting
import Testing

/// The change feed's wire convention as FastAPI and Django REST Framework serve it
/// (`Fixtures/fastapi_app.py`, `Fixtures/drf_notes/notes/feed.py`, the code Docs/HTTP.md
/// shows): the feed laws over the real frameworks, and a device syncing through them.
@Suite(.serialized) struct FrameworkChangeFeedTests {
    /// The feed laws over a framework's `/tasks/`, cleared before each law. Both stores of
    /// `unissuedCursorExpires` would be the one resource, so that law is left to the fixture
    /// server's test, where each store is a collection of its own.
    private func expectFeedLaws(
        _ server: FixtureServer, _ configuration: HTTPRepository<Chore>.Configuration, forget: String,
        writesPerWriter: Int
    ) async throws {
        let url = server.root.appending(path: "tasks/")
        let report = try await ChangeFeedConformance(
            options: ChangeFeedConformanceOptions(
                expireCursors: { _ in _ = try await server.call("POST", forget) },
                reopen: { HTTPRepository(baseURL: $0.baseURL, configuration: $0.configuration) },
                seed: 2_026, concurrentWriters: 4, writesPerWriter: writesPerWriter),
            makeRepository: {
                let tasks = HTTPRepository<Chore>(baseURL: url, configuration: configuration)
                try await tasks.deleteAll()
                return tasks
            },
            makeEntity: Chore.make
        ).check(ChangeFeedLaw.allCases.filter { $0 != .unissuedCursorExpires })
        #expect(report.skipped.isEmpty, "\(report)")
    }

    /// A device (a `FileRepository` and its outbox) syncing with a framework through its feed,
    /// while another client writes there: after the first sync, a sync with nothing to do is one
    /// request; another client's changes arrive in one page; once the server forgets its
    /// deletions the device reads in full, and holds what the server holds.
    private func expectIncrementalSync(
        _ server: FixtureServer, _ configuration: HTTPRepository<Chore>.Configuration, forget: String
    ) async throws {
        let url = server.root.appending(path: "tasks/")
        let directory = try TemporaryDirectory()
        let local = try await FileRepository<Chore>(fileURL: directory.file("chores.store"))
        let device = HTTPRepository<Chore>(baseURL: url, configuration: configuration).offlineFirst(
            local: local, outbox: try await Outbox<Chore>(fileURL: directory.file("chores.outbox")),
            automaticSync: nil)
        let elsewhere = HTTPRepository<Chore>(baseURL: url, configuration: configuration)
        try await elsewhere.save(contentsOf: (0..<12).map { Chore.make(index: $0, revision: 0) })

        let first = try await device.sync()
        #expect(first.received == 12 && !first.pullWasIncremental, "\(first)")
        let idle = try await device.sync()
        #expect(idle.pullWasIncremental && idle.received == 0 && idle.requests == 1, "\(idle)")

        try await device.save(Chore.make(index: 20, revision: 0))
        try await elsewhere.save(Chore.make(index: 3, revision: 1))
        try await elsewhere.delete(id: Chore.make(index: 4, revision: 0).id)
        let both = try await device.sync()
        #expect(both.confirmed == 1 && both.pullWasIncremental, "\(both)")
        #expect(
            both.received == 2,
            "the edit and the deletion made elsewhere; the device's own save is no news: \(both)")
        let sorted: ([Chore]) -> [Chore] = { $0.sorted { $0.id.uuidString < $1.id.uuidString } }
        #expect(sorted(try await local.fetchAll()) == sorted(try await elsewhere.fetchAll()))

        try await elsewhere.delete(id: Chore.make(index: 5, revision: 0).id)
        _ = try await server.call("POST", forget)
        let expired = try await device.sync()
        #expect(
            !expired.pullWasIncremental && expired.fullPullReason?.contains("expired") == true, "\(expired)")
        #expect(sorted(try await local.fetchAll()) == sorted(try await elsewhere.fetchAll()))
        #expect(try await local.count() == 11)
    }

    private static func withFeed(
        _ configuration: HTTPRepository<Chore>.Configuration
    ) -> HTTPRepository<Chore>.Configuration {
        var configuration = configuration
        configuration.changeFeed = .changesEndpoint()
        return configuration
    }

    @Test func fastAPIKeepsTheFeedLaws() async throws {
        try await withFramework(.fastAPI) { server in
            try await expectFeedLaws(
                server, Self.withFeed(.fastAPI()), forget: "/__forget_deletions?resource=tasks",
                writesPerWriter: 40)
        }
    }

    @Test func aDeviceSyncsIncrementallyWithFastAPI() async throws {
        try await withFramework(.fastAPI) { server in
            try await expectIncrementalSync(
                server, Self.withFeed(.fastAPI()), forget: "/__forget_deletions?resource=tasks")
        }
    }

    @Test func djangoRESTFrameworkKeepsTheFeedLaws() async throws {
        try await withFramework(.djangoREST) { server in
            try await expectFeedLaws(
                server, Self.withFeed(.djangoREST(pageSize: 100)), forget: "/__forget_deletions/tasks/",
                // Django's server commits one write at a time to SQLite: fewer writes, the same
                // interleavings.
                writesPerWriter: 15)
        }
    }

    @Test func aDeviceSyncsIncrementallyWithDjangoRESTFramework() async throws {
        try await withFramework(.djangoREST) { server in
            try await expectIncrementalSync(
                server, Self.withFeed(.djangoREST(pageSize: 100)), forget: "/__forget_deletions/tasks/")
        }
    }
}
