import Foundation
import Repositories
import RepositoriesSQLite
import RepositoriesTestSupport
import Testing

/// Declared fields as SQLite columns: queries answered in SQL agree with `Query.apply` over
/// random writes, use the fields' indexes, re-check what they return, and the columns follow
/// the entity's declaration as it changes.
@Suite struct SQLiteRepositoryFieldQueryTests {
    let scratch: TemporaryDirectory

    init() throws {
        scratch = try TemporaryDirectory()
    }

    @Test func sqlAnswersWhatTheReferenceAnswersOverRandomWrites() async throws {
        for seed in UInt64(1)...2 {
            var random = SeededRandomNumberGenerator(seed: seed)
            let url = scratch.file()
            var store = try await SQLiteRepository<Specimen>(fileURL: url)
            var reference: [Specimen] = []
            for step in 0..<600 {
                let id = Int.random(in: 0..<200, using: &random)
                if Int.random(in: 0..<10, using: &random) < 7 {
                    let specimen = Specimen.random(id, &random)
                    try await store.save(specimen)
                    Specimen.save(specimen, into: &reference)
                } else {
                    try await store.delete(id: id)
                    reference.removeAll { $0.id == id }
                }
                if step == 300 {
                    try await store.close()
                    store = try await SQLiteRepository<Specimen>(fileURL: url)
                }
                guard step % 100 == 99 else { continue }
                for (name, query) in Specimen.randomQueries(&random) {
                    // IDs, not entities: a NaN mass makes a specimen unequal to itself.
                    let expected = try query.apply(to: reference).map(\.id)
                    #expect(
                        try await store.fetch(query).map(\.id) == expected,
                        "seed \(seed) step \(step): \(name)")
                    #expect(
                        try await store.count(query) == expected.count,
                        "seed \(seed) step \(step): count \(name)")
                }
            }
            try await store.close()
        }
    }

    @Test func queriesOnTenThousandRowsUseTheFieldsIndexes() async throws {
        let store = try await SQLiteRepository<Specimen>(fileURL: scratch.file())
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
            let plan = try await store.queryPlan(query).joined(separator: "; ")
            #expect(plan.contains("USING INDEX repositories_field_Specimen.\(field)"), "\(query): \(plan)")
            #expect(
                !plan.contains("SCAN Specimen\n") && !plan.hasPrefix("SCAN Specimen;"), "\(query): \(plan)")
        }
        try await store.close()
    }

    @Test func aFieldColumnThatDisagreesWithItsBodyIsCorruptedNamingTheRow() async throws {
        let url = scratch.file()
        let store = try await SQLiteRepository<Specimen>(fileURL: url)
        var random = SeededRandomNumberGenerator(seed: 3)
        try await store.save(contentsOf: (0..<50).map { Specimen.random($0, &random) })
        try await store.close()
        try RawDatabase(url).execute(#"UPDATE "Specimen" SET year = 3000 WHERE id = 7"#)

        let reopened = try await SQLiteRepository<Specimen>(fileURL: url)
        for query in [
            Query<Specimen>().where(\.year >= 2_500),
            Query<Specimen>().sorted(by: \.year, .descending).limit(3),
        ] {
            let error = try await #require(throws: RepositoryError.self) { try await reopened.fetch(query) }
            #expect(error.code == .corrupted, "\(query)")
            #expect(error.record == "7", "\(query)")
        }
        try await reopened.close()
    }

    struct Stamped: Identifiable, Codable, Sendable, QueryableEntity {
        var id: Int
        var at: Date
        static let queryableFields = [QueryableField<Stamped>(\.at, name: "at")]
    }

    /// A JSON codec that keeps dates in whole seconds: the column holds what the body decodes
    /// to, so a query finds the row by the date every read returns.
    @Test func aFieldColumnHoldsWhatTheBodyDecodesToNotWhatWasSaved() async throws {
        let options = SQLiteOptions(
            codec: .json,
            makeEncoder: {
                let encoder = JSONEncoder()
                encoder.dateEncodingStrategy = .secondsSince1970
                return encoder
            },
            makeDecoder: {
                let decoder = JSONDecoder()
                decoder.dateDecodingStrategy = .secondsSince1970
                return decoder
            })
        let store = try await SQLiteRepository<Stamped>(fileURL: scratch.file(), options: options)
        try await store.save(Stamped(id: 1, at: Date(timeIntervalSince1970: 1_700_000_000.123_456_7)))
        let stored = try #require(try await store.fetch(id: 1))
        #expect(try await store.fetch(Query().where(\.at == stored.at)).map(\.id) == [1])
        #expect(try await store.fetch(Query().where(\.at >= .distantPast)).map(\.id) == [1])
        #expect(try await store.count(Query().where(\.at == stored.at)) == 1)
        try await store.close()
    }

    /// SQLite refuses an expression more than 1,000 deep, and parentheses nested a few dozen
    /// deep; a query of more terms or deeper groups than a statement takes runs in Swift,
    /// with the same answer.
    @Test func aQueryOfHundredsOfTermsAnswersAsTheReference() async throws {
        let store = try await SQLiteRepository<Specimen>(fileURL: scratch.file())
        var random = SeededRandomNumberGenerator(seed: 11)
        let specimens = (0..<300).map { Specimen.random($0, &random) }
        try await store.save(contentsOf: specimens)
        for count in [150, 1_200] {
            let terms = (0..<count).map { FieldCondition<Specimen>.not(\.year == 1_990 + $0 % 7) }
            var query = Query<Specimen>().sorted(by: \.name).limit(30)
            for term in terms { query = query.where(term) }
            let anyQuery = Query<Specimen>().where(.any(.all(), .isIn(\.name, Specimen.names.prefix(3))))
            #expect(
                try await store.fetch(query).map(\.id) == query.apply(to: specimens).map(\.id), "\(count)")
            #expect(try await store.count(query) == query.apply(to: specimens).count, "\(count)")
            #expect(try await store.fetch(anyQuery).map(\.id) == anyQuery.apply(to: specimens).map(\.id))
        }
        // Nested groups: SQLite's parser overflows on a few dozen levels of parentheses.
        for levels in [5, 60] {
            var nested: FieldCondition<Specimen> = \.fell == true
            for level in 0..<levels {
                nested = .any(.all(nested, \.year != 1_990 + level % 10), \.year == 1_995 + level % 3)
            }
            let query = Query<Specimen>().where(nested).sorted(by: \.mass).limit(40)
            #expect(
                try await store.fetch(query).map(\.id) == query.apply(to: specimens).map(\.id), "\(levels)")
            #expect(try await store.count(query) == query.apply(to: specimens).count, "\(levels)")
        }
        try await store.close()
    }

    // MARK: The declaration changing

    typealias Shelf = FieldDeclarations.Shelf
    typealias NameOnly = FieldDeclarations.NameOnly
    typealias NameAndYear = FieldDeclarations.NameAndYear
    typealias YearAsText = FieldDeclarations.YearAsText
    typealias Loose = FieldDeclarations.Loose
    typealias Strict = FieldDeclarations.Strict

    static let options = SQLiteOptions(tableName: "shelf")

    func columns(_ url: URL) throws -> [String] {
        try RawDatabase(url).strings(
            "SELECT name || ' ' || type FROM pragma_table_info('shelf') ORDER BY cid")
    }

    func indexes(_ url: URL) throws -> Set<String> {
        Set(try RawDatabase(url).strings("SELECT name FROM pragma_index_list('shelf')"))
    }

    @Test func aNewlyDeclaredFieldGetsItsColumnFilledWithoutNumberingAChange() async throws {
        let url = scratch.file()
        let plain = try await SQLiteRepository<Shelf>(fileURL: url, options: Self.options)
        try await plain.save(
            contentsOf: (0..<30).map { Shelf(id: $0, name: "n\($0)", year: 1_990 + $0 % 10) })
        let cursor = try await FeedRead.all(of: plain).next
        try await plain.close()
        #expect(try columns(url) == ["seq INTEGER", "id ", "body BLOB", "crc INTEGER"])

        let named = try await SQLiteRepository<NameOnly>(fileURL: url, options: Self.options)
        #expect(try columns(url).suffix(1) == ["name TEXT"])
        #expect(try await named.fetch(Query().where(\.name == "n3")).map(\.id) == [3])
        try await named.close()

        let both = try await SQLiteRepository<NameAndYear>(fileURL: url, options: Self.options)
        #expect(try columns(url).suffix(2) == ["name TEXT", "year INTEGER"])
        #expect(
            try indexes(url).isSuperset(of: [
                "repositories_field_shelf.name", "repositories_field_shelf.year",
            ]))
        let expected = (0..<30).filter { 1_990 + $0 % 10 >= 1_998 }
        #expect(try await both.fetch(Query().where(\.year >= 1_998)).map(\.id) == expected)
        // Filling the columns changed no entity, so the feed has nothing new.
        #expect(try await FeedRead.all(of: both, from: cursor).isEmpty)
        try await both.save(NameAndYear(id: 100, name: "late", year: 2_000))
        #expect(try await both.fetch(Query().where(\.year == 2_000)).map(\.id) == [100])
        try await both.close()

        let retyped = try await SQLiteRepository<YearAsText>(fileURL: url, options: Self.options)
        #expect(try columns(url).suffix(1) == ["year TEXT"])
        #expect(try await retyped.fetch(Query().where(.hasPrefix(\.yearText, "200"))).map(\.id) == [100])
        try await retyped.close()

        // Declaring nothing drops the columns and their indexes: the table is as it began.
        let plainAgain = try await SQLiteRepository<Shelf>(fileURL: url, options: Self.options)
        #expect(try columns(url) == ["seq INTEGER", "id ", "body BLOB", "crc INTEGER"])
        #expect(try indexes(url).allSatisfy { !$0.hasPrefix("repositories_field_") })
        #expect(try await plainAgain.count() == 31)
        try await plainAgain.close()
    }

    @Test func aRowThatCannotFillItsColumnLeavesTheTableAsItWas() async throws {
        let url = scratch.file()
        let options = SQLiteOptions(tableName: "shelf", codec: .json)
        let loose = try await SQLiteRepository<Loose>(fileURL: url, options: options)
        try await loose.save(contentsOf: [Loose(id: 1, name: "a"), Loose(id: 2, name: "b")])
        try await loose.close()
        let before = try columns(url)

        let error = try await #require(throws: RepositoryError.self) {
            _ = try await SQLiteRepository<Strict>(fileURL: url, options: options)
        }
        #expect(error.code == .decodingFailed)
        #expect(error.record == "1")
        #expect(try columns(url) == before)
        #expect(
            try RawDatabase(url).strings(
                "SELECT name FROM sqlite_master WHERE name = 'repositories_entity_fields'"
            ).isEmpty)
    }

    @Test func aColumnTheRepositoryDidNotRecordIsRefused() async throws {
        let url = scratch.file()
        let plain = try await SQLiteRepository<Shelf>(fileURL: url, options: Self.options)
        try await plain.save(Shelf(id: 1, name: "a", year: 2_000))
        try await plain.close()
        try RawDatabase(url).execute("ALTER TABLE shelf ADD COLUMN year INTEGER")

        let error = try await #require(throws: RepositoryError.self) {
            _ = try await SQLiteRepository<NameAndYear>(fileURL: url, options: Self.options)
        }
        #expect(error.code == .rejected)
        #expect(error.reason.contains("year"), "\(error.reason)")
    }

    @Test func aFieldNamedLikeTheTablesOwnColumnsIsRefused() async throws {
        struct Clash: Identifiable, Codable, Sendable, QueryableEntity {
            var id: Int
            var order: Int
            static let queryableFields = [QueryableField<Clash>(\.order, name: "seq")]
        }
        let error = try await #require(throws: RepositoryError.self) {
            _ = try await SQLiteRepository<Clash>(fileURL: scratch.file())
        }
        #expect(error.code == .rejected)
        #expect(error.reason.contains("\"seq\""), "\(error.reason)")
    }
}
