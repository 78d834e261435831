import Foundation
import RepositoriesPostgres
import RepositoriesTestSupport
import RepositoriesTesting
import Testing

/// The conformance suite over a real PostgreSQL server that the tests start themselves, with
/// `Int`, `String` and `UUID` IDs, durability (reopening on the same table) and migrations
/// included. The fixture's title goes without its NUL character, which `jsonb` cannot keep
/// (the store refuses it, as `bodiesJSONBCannotKeepAreRefusedNamingTheField` proves); the
/// `bytea` table of an earlier release keeps it, and runs the whole suite with it.
@Suite struct PostgresRepositoryConformanceTests {
    static func suite() -> RepositoryConformance<PostgresRepository<ConformanceEntity>> {
        RepositoryConformance(
            options: PostgresStores.options(makeUnencodable: ConformanceEntity.unencodable),
            makeRepository: { try await PostgresStores.make() }, makeEntity: ConformanceEntity.makeWithoutNUL)
    }

    @Test func migrations() async throws {
        try await Self.suite().migrations()
    }

    @Test func conformsOnTheByteaTableOfAnEarlierRelease() async throws {
        let report = try await RepositoryConformance(
            options: PostgresStores.options(),
            makeRepository: {
                let name = PostgresStores.tableName()
                try await PostgresStores.createEarlierReleaseTable(name)
                return try await PostgresStores.make(ConformanceEntity.self, table: name)
            }
        ).run()
        #expect(report.skipped.isEmpty)
    }

    @Test func basics() async throws {
        try await Self.suite().basics()
    }
    @Test func batches() async throws {
        try await Self.suite().batches()
    }
    @Test func ordering() async throws {
        try await Self.suite().ordering()
    }
    @Test func queries() async throws {
        try await Self.suite().queries()
    }
    @Test func concurrency() async throws {
        try await Self.suite().concurrency()
    }
    @Test func randomized() async throws {
        try await Self.suite().randomized()
    }
    @Test func durability() async throws {
        try await Self.suite().durability()
    }

    @Test func conformsWithStringIDs() async throws {
        let report = try await RepositoryConformance(
            options: PostgresStores.options(makeUnencodable: Note.unencodable),
            makeRepository: { try await PostgresStores.make(Note.self) }, makeEntity: Note.make
        ).run()
        // Note and Ticket declare no queryable fields: the field-query law is skipped for them.
        #expect(
            report.skipped.allSatisfy {
                $0.law.area == .migrations || $0.law == .declaredFieldQueriesMatchReference
            })
    }

    @Test func conformsWithUUIDIDs() async throws {
        let report = try await RepositoryConformance(
            options: PostgresStores.options(makeUnencodable: Ticket.unencodable),
            makeRepository: { try await PostgresStores.make(Ticket.self) }, makeEntity: Ticket.make
        ).run()
        // Note and Ticket declare no queryable fields: the field-query law is skipped for them.
        #expect(
            report.skipped.allSatisfy {
                $0.law.area == .migrations || $0.law == .declaredFieldQueriesMatchReference
            })
    }
}
