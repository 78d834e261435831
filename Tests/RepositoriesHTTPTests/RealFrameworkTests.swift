import Foundation
import Repositories
import RepositoriesHTTP
import RepositoriesTesting
import Testing

/// The conformance suite over a real back-end: the `/tasks/` resource, cleared before each
/// law (the suite asks for an empty repository per law), at a load a single Python process
/// answers in seconds.
func frameworkConformance(
    _ server: FixtureServer, _ configuration: HTTPRepository<Chore>.Configuration
) -> RepositoryConformance<HTTPRepository<Chore>> {
    let url = server.root.appending(path: "tasks/")
    var options = ConformanceOptions<HTTPRepository<Chore>>(
        unsupported: [.atomicBatches], seed: 2_026, concurrentTasks: 4, operationsPerTask: 40,
        randomizedRuns: 6,
        operationsPerRun: 24)
    options.reopen = { HTTPRepository(baseURL: $0.baseURL, configuration: $0.configuration) }
    return RepositoryConformance(
        options: options,
        makeRepository: {
            let tasks = HTTPRepository<Chore>(baseURL: url, configuration: configuration)
            try await tasks.deleteAll()
            return tasks
        },
        makeEntity: Chore.make)
}

/// Every law but the atomic-batch ones held, and nothing failed under the concurrent load.
/// (`Chore` declares no queryable fields, so the field-query law is skipped too.)
func expectConformance(_ report: ConformanceReport, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(report.violations.isEmpty, "\(report)", sourceLocation: sourceLocation)
    #expect(
        Set(report.skipped.map(\.law)).subtracting(ConformanceArea.migrations.laws)
            == [
                .failedBatchLeavesNothing, .cancelledBatchIsAllOrNothing, .batchesAreNeverSeenTorn,
                .declaredFieldQueriesMatchReference,
            ],
        "\(report)", sourceLocation: sourceLocation)
    #expect(
        !report.notes.contains { $0.hasPrefix("concurrency:") }, "\(report)", sourceLocation: sourceLocation)
}

/// `HTTPRepository` with `Configuration.fastAPI()` against a real FastAPI app on uvicorn,
/// written as FastAPI's tutorial writes one (`Fixtures/fastapi_app.py`).
@Suite(.serialized) struct FastAPITests {
    @Test func conformsWithClientChosenUUIDs() async throws {
        try await withFramework(.fastAPI) { server in
            expectConformance(try await frameworkConformance(server, .fastAPI()).run())
        }
    }

    @Test func createReturnsTheIDAndTimestampTheServerAssigned() async throws {
        try await withFramework(.fastAPI) { server in
            let notes = HTTPRepository<Memo>(
                baseURL: server.root.appending(path: "notes/"), configuration: .fastAPI())
            let before = Date()
            let first = try await notes.create(.draft("Call the plumber"))
            let second = try await notes.create(.draft("Water the plants"))
            #expect(first.id == 1 && second.id == 2)
            #expect(first.title == "Call the plumber")
            let stamped = try #require(first.createdAt, "FastAPI's created_at, with microseconds, decoded")
            #expect(abs(stamped.timeIntervalSince(before)) < 60)
            #expect(try await notes.fetch(id: 2) == second)
        }
    }

    @Test func batchOfNewEntitiesCreatesEveryOne() async throws {
        try await withFramework(.fastAPI) { server in
            let notes = HTTPRepository<Memo>(
                baseURL: server.root.appending(path: "notes/"), configuration: .fastAPI())
            try await notes.save(contentsOf: [.draft("a"), .draft("b")])
            #expect(try await notes.fetchAll().map(\.title) == ["a", "b"], "two new entities, two notes")
            let created = try await notes.create(contentsOf: [.draft("c"), .draft("d")])
            #expect(created.map(\.id) == [3, 4])
        }
    }

    @Test func saveOfAClientChosenIDCreatesThenReplaces() async throws {
        try await withFramework(.fastAPI) { server in
            let tasks = HTTPRepository<Chore>(
                baseURL: server.root.appending(path: "tasks/"), configuration: .fastAPI())
            var chore = Chore.make(index: 1, revision: 0)
            try await tasks.save(chore)
            chore.title = "renamed"
            try await tasks.save(chore)
            #expect(try await tasks.fetchAll() == [chore])
            let plain = HTTPRepository<Chore>(baseURL: server.root.appending(path: "tasks/"))
            let error = await #expect(throws: RepositoryError.self) {
                try await plain.save(Chore.make(index: 2, revision: 0))
            }
            #expect(error?.code == .rejected, "without the strategy, FastAPI's PUT answers 404")
        }
    }

    @Test func a422ArrivesAsFieldErrorsKeyedByTheSwiftPropertyName() async throws {
        try await withFramework(.fastAPI) { server in
            let tasks = HTTPRepository<CarelessChore>(
                baseURL: server.root.appending(path: "tasks/"), configuration: .fastAPI())
            let error = await #expect(throws: RepositoryError.self) { try await tasks.save(.refused) }
            #expect(error?.code == .rejected)
            #expect(error?.httpStatus == 422)
            let fields = try #require(error?.fieldErrors)
            #expect(Set(fields.keys) == ["rank", "dueAt"], "FastAPI's due_at is dueAt: \(fields)")
            #expect(fields["rank"]?.first?.contains("valid integer") == true, "\(fields)")
            #expect(fields.values.allSatisfy { !$0.isEmpty && $0.allSatisfy { !$0.isEmpty } })
        }
    }

    @Test func collectionsLongerThanAPageAreReadWhole() async throws {
        try await withFramework(.fastAPI) { server in
            let tasks = HTTPRepository<Chore>(
                baseURL: server.root.appending(path: "tasks/"), configuration: .fastAPI(pageSize: 7))
            let chores = (1...20).map { Chore.make(index: $0, revision: 0) }
            try await tasks.save(contentsOf: chores)
            #expect(try await tasks.fetchAll() == chores)
            #expect(try await tasks.count() == 20)
        }
    }
}

/// `HTTPRepository` with `Configuration.djangoREST()` against a real Django REST Framework
/// `ModelViewSet` behind a `DefaultRouter`, with the quickstart's pagination
/// (`Fixtures/drf_notes`).
@Suite(.serialized) struct DjangoRESTFrameworkTests {
    @Test func conformsWithClientChosenUUIDs() async throws {
        try await withFramework(.djangoREST) { server in
            // One page per read: page-number pages read while other tasks insert and delete
            // can miss an entity, which the concurrency laws would (rightly) report.
            expectConformance(try await frameworkConformance(server, .djangoREST(pageSize: 1_000)).run())
        }
    }

    @Test func createReturnsTheIDAndTimestampTheServerAssigned() async throws {
        try await withFramework(.djangoREST) { server in
            let notes = HTTPRepository<Memo>(
                baseURL: server.root.appending(path: "notes"), configuration: .djangoREST())
            let first = try await notes.create(.draft("Call the plumber"))
            #expect(first.id == 1)
            #expect(first.createdAt != nil, "DRF's created_at, with microseconds, decoded")
            #expect(try await notes.fetch(id: first.id) == first)
        }
    }

    @Test func batchOfNewEntitiesCreatesEveryOne() async throws {
        try await withFramework(.djangoREST) { server in
            let notes = HTTPRepository<Memo>(
                baseURL: server.root.appending(path: "notes"), configuration: .djangoREST())
            try await notes.save(contentsOf: [.draft("a"), .draft("b")])
            #expect(try await notes.fetchAll().map(\.title) == ["a", "b"])
        }
    }

    @Test func pagedListsAndPlainItemsOnOneRepository() async throws {
        try await withFramework(.djangoREST) { server in
            let tasks = HTTPRepository<Chore>(
                baseURL: server.root.appending(path: "tasks"), configuration: .djangoREST())
            let chores = (1...23).map { Chore.make(index: $0, revision: 0) }
            try await tasks.save(contentsOf: chores)
            #expect(try await tasks.fetchAll() == chores, "three pages of ten, followed by next")
            #expect(try await tasks.fetch(id: chores[4].id) == chores[4], "an item is not wrapped")
            #expect(try await tasks.count() == 23, "from the page's count")
        }
    }

    @Test func a400ArrivesAsFieldErrorsKeyedByTheSwiftPropertyName() async throws {
        try await withFramework(.djangoREST) { server in
            let tasks = HTTPRepository<CarelessChore>(
                baseURL: server.root.appending(path: "tasks"), configuration: .djangoREST())
            let error = await #expect(throws: RepositoryError.self) { try await tasks.save(.refused) }
            #expect(error?.code == .rejected)
            #expect(error?.httpStatus == 400)
            let fields = try #require(error?.fieldErrors)
            #expect(Set(fields.keys) == ["rank", "dueAt"], "DRF's due_at is dueAt: \(fields)")
            #expect(fields["rank"] == ["A valid integer is required."])
            #expect(fields["dueAt"]?.first?.hasPrefix("Datetime has wrong format.") == true, "\(fields)")
        }
    }

    @Test func missingTrailingSlashIsRejectedNamingTheFix() async throws {
        try await withFramework(.djangoREST) { server in
            var configuration = HTTPRepository<Memo>.Configuration.djangoREST()
            configuration.trailingSlash = false
            let notes = HTTPRepository<Memo>(
                baseURL: server.root.appending(path: "notes"), configuration: configuration)
            let error = await #expect(throws: RepositoryError.self) { try await notes.fetch(id: 1) }
            #expect(error?.code == .rejected, "a setup mistake, not an outage for retry and fallback")
            #expect(
                error?.description.contains("configuration.trailingSlash = true") == true,
                "\(String(describing: error))")
        }
    }
}
