import Foundation
import Repositories
import Testing

// Docs/Queries.md: the snippets verbatim, run against an in-memory store of six meteorites.

// The other guides' snippets nest a `Meteorite` of their own, which shadows this one there.
struct Meteorite: Identifiable, Codable, Sendable {
    enum Fall: String, Codable, Sendable, QueryableValue { case fell, found }

    let id: Int
    var name: String
    var mass: Double?
    var fall: Fall
    var year: Int?
    var latitude: Double?
}

extension Meteorite: QueryableEntity {
    static let queryableFields: [QueryableField<Meteorite>] = [
        QueryableField(\.name, name: "name"),
        QueryableField(\.mass, name: "mass"),
        QueryableField(\.fall, name: "fall"),
        QueryableField(\.year, name: "year"),
        QueryableField(\.latitude, name: "latitude"),
    ]
}

@Suite struct QueriesSnippets {
    let meteorites = InMemoryRepository<Meteorite>([
        Meteorite(id: 1, name: "Allende", mass: 2_000_000, fall: .fell, year: 1_969, latitude: 26.97),
        Meteorite(id: 2, name: "Alais", mass: 6_000, fall: .fell, year: nil, latitude: 44.12),
        Meteorite(id: 3, name: "Hoba", mass: 60_000_000, fall: .found, year: 1_920, latitude: -19.58),
        Meteorite(id: 4, name: "Aba Panu", mass: nil, fall: .fell, year: 2_018, latitude: nil),
        Meteorite(id: 5, name: "allan", mass: 500, fall: .found, year: 1_990, latitude: 10),
        Meteorite(id: 6, name: "Zag", mass: 175_000, fall: .fell, year: 1_990, latitude: 27.33),
    ])

    @Test func conditions() async throws {
        let heavyFalls = Query<Meteorite>()
            .where(.all(\.mass >= 1_000, \.fall == .fell))
            .where(\.year != nil)
        let named = Query<Meteorite>().where(.hasPrefix(\.name, "Al"))
        let chosen = Query<Meteorite>().where(.any(.isIn(\.year, [1_990, 2_000]), .isNil(\.latitude)))
        let others = Query<Meteorite>().where(.not(\.fall == .found))

        #expect(try await meteorites.fetch(heavyFalls).map(\.id) == [1, 6])
        #expect(try await meteorites.fetch(named).map(\.id) == [1, 2])
        #expect(try await meteorites.fetch(chosen).map(\.id) == [4, 5, 6])
        #expect(try await meteorites.fetch(others).map(\.id) == [1, 2, 4, 6])
    }

    @Test func anUndeclaredPropertyIsRefused() async throws {
        do {
            _ = try await meteorites.fetch(Query<Meteorite>().where(\.id == 7))
        } catch let error as RepositoryError where error.code == .rejected {
            print(error.reason)  // The query's condition \Meteorite.id == 7 reads \Meteorite.id, which …
        }
        let error = try await #require(throws: RepositoryError.self) {
            try await meteorites.fetch(Query<Meteorite>().where(\.id == 7))
        }
        #expect(error.code == .rejected)
        #expect(
            error.reason.hasPrefix("The query's condition \\Meteorite.id == 7 reads \\Meteorite.id, which"))
    }

    @Test func sorting() async throws {
        let heaviest = Query<Meteorite>()
            .where(\.latitude != nil)
            .sorted(by: \.mass, .descending)  // nil last when descending
            .sorted(by: \.name)  // breaks ties in mass
            .limit(20)
        #expect(try await meteorites.fetch(heaviest).map(\.id) == [3, 1, 6, 2, 5])
    }

    @Test func counting() async throws {
        let page = Query<Meteorite>().where(\.fall == .fell).sorted(by: \.name)
        let total = try await meteorites.count(page)  // every fall
        let rows = try await meteorites.fetch(page.offset(40).limit(20))
        #expect(total == 4)
        #expect(rows.isEmpty)
    }
}
