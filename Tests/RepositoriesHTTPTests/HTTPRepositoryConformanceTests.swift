import Foundation
import Repositories
import RepositoriesHTTP
import RepositoriesTestSupport
import RepositoriesTesting
import Testing

/// `HTTPRepository` keeps every law of `Repository` it can over plain REST, against a real
/// server, with Int, String and UUID IDs; with a bulk endpoint it keeps the batch laws too.
///
/// Each repository the suite asks for is a new collection (`/items-<uuid>`) on one server
/// per test, so the laws never see each other's entities. The concurrency area runs at its
/// full default load (8 tasks × 1,000 operations, every one a loopback request), and no
/// operation may fail under it. The tests run one after another: each keeps both cores busy.
@Suite(.serialized) struct HTTPRepositoryConformanceTests {
    func suite<E: Codable & Identifiable & Sendable & Equatable>(
        _ server: FixtureServer, _ type: E.Type,
        unsupported: Set<ConformanceCapability> = [.atomicBatches],
        configure: @escaping @Sendable (inout HTTPRepository<E>.Configuration) -> Void = { _ in },
        makeEntity: @escaping @Sendable (Int, Int) -> E
    ) -> RepositoryConformance<HTTPRepository<E>> where E.ID: Codable & Sendable {
        var options = ConformanceOptions<HTTPRepository<E>>(unsupported: unsupported)
        // The server keeps the data, so a new client over the same collection must see it all.
        options.reopen = { HTTPRepository(baseURL: $0.baseURL, configuration: $0.configuration) }
        if E.self == ConformanceEntity.self {
            options.makeUnencodableEntity = { ConformanceEntity.unencodable(index: $0) as! E }
        }
        return RepositoryConformance(
            options: options,
            makeRepository: {
                var configuration = HTTPRepository<E>.Configuration()
                configure(&configuration)
                return HTTPRepository<E>(baseURL: server.newCollection(), configuration: configuration)
            },
            makeEntity: makeEntity)
    }

    /// Plain REST has no transaction: exactly the atomic-batch laws are skipped (and the
    /// field-query law for an entity that declares no fields), and no operation failed under
    /// the concurrent load.
    func expectPlainRESTReport(_ report: ConformanceReport) {
        #expect(
            Set(report.skipped.map(\.law)).subtracting(ConformanceArea.migrations.laws)
                .subtracting([.declaredFieldQueriesMatchReference])
                == [.failedBatchLeavesNothing, .cancelledBatchIsAllOrNothing, .batchesAreNeverSeenTorn],
            "\(report)")
        #expect(!report.notes.contains { $0.hasPrefix("concurrency:") }, "\(report)")
    }

    @Test func conformsWithIntIDs() async throws {
        try await withFixtureServer { server in
            expectPlainRESTReport(
                try await suite(server, ConformanceEntity.self, makeEntity: ConformanceEntity.make).run())
        }
    }

    @Test func conformsWithStringIDs() async throws {
        try await withFixtureServer { server in
            expectPlainRESTReport(try await suite(server, Note.self, makeEntity: Note.make).run())
        }
    }

    @Test func conformsWithUUIDIDs() async throws {
        try await withFixtureServer { server in
            expectPlainRESTReport(try await suite(server, Ticket.self, makeEntity: Ticket.make).run())
        }
    }

    /// With a bulk endpoint the server applies a batch in one step, so even the atomic-batch
    /// laws hold; the collection `DELETE` and the count endpoint are used too.
    @Test func conformsWithBulkEndpointsIncludingAtomicBatches() async throws {
        try await withFixtureServer { server in
            let report = try await suite(
                server, ConformanceEntity.self, unsupported: [],
                configure: { configuration in
                    configuration.endpoints.saveBatch = { _, resource in .post(resource.collection) }
                    configuration.endpoints.deleteAll = { resource in .delete(resource.collection) }
                    configuration.endpoints.count = { resource in
                        .get(resource.collection).adding(query: [URLQueryItem(name: "count", value: nil)])
                    }
                },
                makeEntity: ConformanceEntity.make
            ).run()
            #expect(report.skipped.allSatisfy { $0.law.area == .migrations }, "\(report)")
            #expect(!report.notes.contains { $0.hasPrefix("concurrency:") }, "\(report)")
        }
    }
}
