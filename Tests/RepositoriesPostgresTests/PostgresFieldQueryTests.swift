import Foundation
import Repositories
import RepositoriesPostgres
import RepositoriesTestSupport
import Testing

/// Declared fields as PostgreSQL columns: queries answered in SQL agree with `Query.apply`
/// over random writes through every write path, use the fields' indexes, check what they
/// return, fill rows a writer that does not know the columns left behind, and the columns
/// follow the entity's declaration as it changes.
@Suite struct PostgresFieldQueryTests {
    /// A repository of specimens: JSON that keeps NaN and infinity as text, dates as the
    /// repository's own ISO 8601 with nanoseconds.
    static func specimens(_ table: String) async throws -> PostgresRepository<Specimen> {
        let server = try await PostgresTestServer.shared()
        return try await PostgresRepository<Specimen>(
            connectionString: server.connectionString,
            options: PostgresOptions(
                tableName: table, poolSize: 2,
                makeEncoder: {
                    let encoder = JSONEncoder()
                    encoder.dateEncodingStrategy = InternetDate.encodingStrategy(.fixedNanoseconds)
                    encoder.nonConformingFloatEncodingStrategy = .convertToString(
                        positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
                    return encoder
                },
                makeDecoder: {
                    let decoder = JSONDecoder()
                    decoder.dateDecodingStrategy = InternetDate.decodingStrategy
                    decoder.nonConformingFloatDecodingStrategy = .convertFromString(
                        positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
                    return decoder
                }))
    }

    @Test func sqlAnswersWhatTheReferenceAnswersOverRandomWrites() async throws {
        var random = SeededRandomNumberGenerator(seed: 11)
        let table = PostgresStores.tableName("fq")
        var store = try await Self.specimens(table)
        var reference: [Specimen] = []
        for step in 0..<600 {
            let id = Int.random(in: 0..<200, using: &random)
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<5:
                let specimen = Specimen.random(id, &random)
                try await store.save(specimen)
                Specimen.save(specimen, into: &reference)
            case 5:
                let batch = (0..<3).map { Specimen.random(id + $0 * 7, &random) }
                try await store.save(contentsOf: batch)
                for specimen in batch { Specimen.save(specimen, into: &reference) }
            case 6:
                // Through a version tag, and through update(id:), which write the row again.
                let specimen = Specimen.random(id, &random)
                if let tag = try await store.fetchTagged(id: id)?.tag {
                    try await store.save(specimen, ifMatch: tag)
                } else {
                    try await store.saveIfAbsent(specimen)
                }
                Specimen.save(specimen, into: &reference)
            case 7 where reference.contains(where: { $0.id == id }):
                let year = Int.random(in: 1_990...1_999, using: &random)
                try await store.update(id: id) { $0.year = year }
                if let index = reference.firstIndex(where: { $0.id == id }) { reference[index].year = year }
            default:
                try await store.delete(id: id)
                reference.removeAll { $0.id == id }
            }
            if step == 300 {
                await store.close()
                store = try await Self.specimens(table)
            }
            guard step % 100 == 99 else { continue }
            for (name, query) in Specimen.randomQueries(&random) {
                // IDs, not entities: a NaN mass makes a specimen unequal to itself.
                let expected = try query.apply(to: reference).map(\.id)
                #expect(try await store.fetch(query).map(\.id) == expected, "step \(step): \(name)")
                #expect(try await store.count(query) == expected.count, "step \(step): count \(name)")
            }
        }
        await store.close()
        try await PostgresStores.drop(table)
    }

    @Test func queriesOnTenThousandRowsUseTheFieldsIndexes() async throws {
        let table = PostgresStores.tableName("fx")
        let store = try await Self.specimens(table)
        var random = SeededRandomNumberGenerator(seed: 7)
        try await store.save(contentsOf: (0..<10_000).map { Specimen.random($0, &random) })
        try await store.analyze()
        let plans: [(Query<Specimen>, String)] = [
            (Query().where(\.mass < 5).sorted(by: \.mass, .descending).limit(20), "mass"),
            (Query().where(\.name == "Z"), "name"),
            (Query().where(.hasPrefix(\.name, "Al")).sorted(by: \.name).limit(5), "name"),
            (Query().sorted(by: \.foundAt).limit(20), "found_at"),
            (Query().where(\.year >= 1_998).sorted(by: \.year).limit(10), "year"),
        ]
        for (query, field) in plans {
            let plan = try await store.queryPlan(query).joined(separator: "\n")
            #expect(plan.contains("\"\(table).\(field)\""), "\(query):\n\(plan)")
            #expect(!plan.contains("Seq Scan"), "\(query):\n\(plan)")
        }
        await store.close()
        try await PostgresStores.drop(table)
    }

    @Test func aFieldColumnThatDisagreesWithItsBodyIsCorruptedNamingTheRow() async throws {
        let table = PostgresStores.tableName("fc")
        let store = try await Self.specimens(table)
        var random = SeededRandomNumberGenerator(seed: 3)
        try await store.save(contentsOf: (0..<50).map { Specimen.random($0, &random) })
        try await PostgresTestServer.shared().psql(#"UPDATE "\#(table)" SET year = 3000 WHERE id = 7"#)
        for query in [
            Query<Specimen>().where(\.year >= 2_500),
            Query<Specimen>().sorted(by: \.year, .descending).limit(3),
        ] {
            let error = try await #require(throws: RepositoryError.self) { try await store.fetch(query) }
            #expect(error.code == .corrupted, "\(query)")
            #expect(error.reason.contains("row 7"), "\(error.reason)")
        }
        await store.close()
        try await PostgresStores.drop(table)
    }

    /// An earlier release, or SQL of your own, writes bodies without the columns: the next
    /// query fills them first, and finds the rows by what their bodies say.
    @Test func rowsAWriterLeftBehindAreFilledBeforeAQuery() async throws {
        let table = PostgresStores.tableName("fs")
        let store = try await Self.specimens(table)
        var random = SeededRandomNumberGenerator(seed: 5)
        try await store.save(contentsOf: (0..<20).map { Specimen.random($0, &random) })
        let server = try await PostgresTestServer.shared()
        // An update as an earlier release writes it, and an insert.
        try await server.psql(
            #"UPDATE "\#(table)" SET body = jsonb_set(body, '{year}', '2999'), version = version + 1 WHERE id = 4"#
        )
        let copied = try await server.psql(#"SELECT body::text FROM "\#(table)" WHERE id = 5"#)
        try await server.psql(
            #"INSERT INTO "\#(table)" (id, body, version) VALUES (500, jsonb_set('\#(copied)'::jsonb, '{id}', '500'), 1)"#
        )
        #expect(try await store.fetch(Query().where(\.year == 2_999)).map(\.id) == [4])
        #expect(try await store.count(Query().where(\.year == 2_999)) == 1)
        let fifth = try #require(try await store.fetch(id: 5))
        #expect(
            try await store.fetch(Query().where(\.name == fifth.name).where(\.year == fifth.year)).map(\.id)
                .contains(500))
        #expect(
            try await server.psql(#"SELECT count(*) FROM "\#(table)" WHERE fields_version <> version"#) == "0"
        )
        await store.close()
        try await PostgresStores.drop(table)
    }

    // MARK: The declaration changing

    typealias Shelf = FieldDeclarations.Shelf
    typealias NameOnly = FieldDeclarations.NameOnly
    typealias NameAndYear = FieldDeclarations.NameAndYear
    typealias YearAsText = FieldDeclarations.YearAsText
    typealias Loose = FieldDeclarations.Loose
    typealias Strict = FieldDeclarations.Strict

    func columns(_ table: String) async throws -> String {
        try await PostgresTestServer.shared().psql(
            "SELECT string_agg(column_name || ' ' || data_type, ', ' ORDER BY ordinal_position) FROM information_schema.columns WHERE table_name = '\(table)'"
        )
    }

    func expectColumns(
        _ table: String, _ expected: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let found = try await columns(table)
        #expect(found == expected, sourceLocation: sourceLocation)
    }

    func indexes(_ table: String) async throws -> String {
        try await PostgresTestServer.shared().psql(
            "SELECT coalesce(string_agg(indexname, ', ' ORDER BY indexname), '') FROM pg_indexes WHERE tablename = '\(table)' AND indexname LIKE '%.%'"
        )
    }

    @Test func aNewlyDeclaredFieldGetsItsColumnFilledWithoutNumberingAChange() async throws {
        let table = PostgresStores.tableName("fd")
        let plain: PostgresRepository<Shelf> = try await PostgresStores.make(table: table)
        try await plain.save(
            contentsOf: (0..<30).map { Shelf(id: $0, name: "n\($0)", year: 1_990 + $0 % 10) })
        let cursor = try await FeedRead.all(of: plain).next
        await plain.close()
        let bare = "seq bigint, id bigint, body jsonb, version bigint, schema_version integer"
        try await expectColumns(table, bare)

        let named: PostgresRepository<NameOnly> = try await PostgresStores.make(table: table)
        let stamps = ", fields_version bigint, fields_declaration bigint, fields_behind boolean"
        try await expectColumns(table, bare + ", name text" + stamps)
        #expect(try await named.fetch(Query().where(\.name == "n3")).map(\.id) == [3])
        await named.close()

        let both: PostgresRepository<NameAndYear> = try await PostgresStores.make(table: table)
        try await expectColumns(table, bare + ", name text, year bigint" + stamps)
        #expect(try await indexes(table) == "\(table).name, \(table).year")
        let expected = (0..<30).filter { 1_990 + $0 % 10 >= 1_998 }
        #expect(try await both.fetch(Query().where(\.year >= 1_998)).map(\.id) == expected)
        // Filling the columns changed no entity, so the feed has nothing new.
        #expect(try await FeedRead.all(of: both, from: cursor).isEmpty)
        try await both.save(NameAndYear(id: 100, name: "late", year: 2_000))
        #expect(try await both.fetch(Query().where(\.year == 2_000)).map(\.id) == [100])

        // An instance of a release that declares fewer fields, still running beside it:
        // its writes leave `year` behind, and the other's queries fill it first.
        let older: PostgresRepository<NameOnly> = try await PostgresStores.make(table: table)
        try await older.save(NameOnly(id: 101, name: "older", year: 2_100))
        try await older.save(NameOnly(id: 3, name: "n3", year: 2_100))
        #expect(try await both.fetch(Query().where(\.year == 2_100)).map(\.id) == [3, 101])
        #expect(try await both.count(Query().where(\.year >= 2_000)) == 3)
        #expect(try await older.fetch(Query().where(\.name == "older")).map(\.id) == [101])
        await older.close()
        await both.close()

        let retyped: PostgresRepository<YearAsText> = try await PostgresStores.make(table: table)
        // The column of a field no longer declared stays; the retyped one is made again.
        try await expectColumns(table, bare + ", name text, year text" + stamps)
        #expect(try await retyped.fetch(Query().where(.hasPrefix(\.yearText, "200"))).map(\.id) == [100])
        await retyped.close()

        // Declaring nothing changes nothing: another release may still declare them.
        let plainAgain: PostgresRepository<Shelf> = try await PostgresStores.make(table: table)
        try await expectColumns(table, bare + ", name text, year text" + stamps)
        #expect(try await plainAgain.count() == 32)
        await plainAgain.close()
        try await PostgresStores.drop(table)
    }

    @Test func aRowThatCannotFillItsColumnLeavesTheTableAsItWas() async throws {
        let table = PostgresStores.tableName("fr")
        let loose: PostgresRepository<Loose> = try await PostgresStores.make(table: table)
        try await loose.save(contentsOf: [Loose(id: 1, name: "a"), Loose(id: 2, name: "b")])
        await loose.close()
        let before = try await columns(table)

        let error = try await #require(throws: RepositoryError.self) {
            let _: PostgresRepository<Strict> = try await PostgresStores.make(table: table)
        }
        #expect(error.code == .decodingFailed)
        #expect(error.id == "1", "\(error)")
        try await expectColumns(table, before)
        try await PostgresStores.drop(table)
    }

    @Test func aColumnTheRepositoryDidNotMakeIsRefused() async throws {
        let table = PostgresStores.tableName("ff")
        let plain: PostgresRepository<Shelf> = try await PostgresStores.make(table: table)
        try await plain.save(Shelf(id: 1, name: "a", year: 2_000))
        await plain.close()
        try await PostgresTestServer.shared().psql(#"ALTER TABLE "\#(table)" ADD COLUMN year bigint"#)
        let before = try await columns(table)

        let error = try await #require(throws: RepositoryError.self) {
            let _: PostgresRepository<NameAndYear> = try await PostgresStores.make(table: table)
        }
        #expect(error.code == .rejected)
        #expect(error.reason.contains("year"), "\(error.reason)")
        try await expectColumns(table, before)
        try await PostgresStores.drop(table)
    }

    @Test func aFieldNamedLikeTheTablesOwnColumnsIsRefused() async throws {
        struct Clash: Identifiable, Codable, Sendable, QueryableEntity {
            var id: Int
            var order: Int
            static let queryableFields = [QueryableField<Clash>(\.order, name: "version")]
        }
        let error = try await #require(throws: RepositoryError.self) {
            let _: PostgresRepository<Clash> = try await PostgresStores.make()
        }
        #expect(error.code == .rejected)
        #expect(error.reason.contains("\"version\""), "\(error.reason)")
    }
}
