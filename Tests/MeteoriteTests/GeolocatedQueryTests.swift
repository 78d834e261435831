import Repositories
import Testing

@testable import Meteorite

/// The article's filter: only meteorites with a location, in stored order.
@Suite struct GeolocatedQueryTests {
    @Test func keepsOnlyTheMeteoritesWithALocationInOrder() async throws {
        let meteorites = [
            Meteorite.sample(id: 1, located: true),
            Meteorite.sample(id: 2, located: false),
            Meteorite.sample(id: 3, located: true),
            Meteorite.sample(id: 4, located: false),
        ]
        #expect(try Query.geolocated.apply(to: meteorites).map(\.id) == [1, 3])
        let store = InMemoryRepository(meteorites)
        #expect(try await store.fetch(.geolocated).map(\.id) == [1, 3])
    }

    @Test func theSearchAndTheHeaviestListRunOnDeclaredFields() async throws {
        var meteorites = (1...6).map { Meteorite.sample(id: $0, located: $0 != 2, mass: Double($0 * 10)) }
        meteorites[0].name = "Allan Hills 84001"
        meteorites[3].name = "Allende"
        meteorites[4].name = "allan lowercase"
        let store = InMemoryRepository(meteorites)
        #expect(try await store.fetch(.named(startingWith: "All")).map(\.id) == [1, 4])
        #expect(try await store.fetch(.heaviestGeolocated(3)).map(\.id) == [6, 5, 4])
        #expect(try await store.count(.geolocated) == 5)
        #expect(Query<Meteorite>.geolocated.conditions.count == 1, "a condition, not a closure")
        #expect(Query<Meteorite>.geolocated.predicates.isEmpty)
    }

    @Test func aLocationAtZeroZeroStillCounts() throws {
        var meteorite = Meteorite.sample(id: 1, located: true)
        meteorite.geolocation = Meteorite.Geolocation(latitude: 0, longitude: 0)
        #expect(try Query.geolocated.apply(to: [meteorite]).count == 1)
    }
}

extension Meteorite {
    /// A small meteorite for tests, with or without a location.
    static func sample(id: Int, located: Bool, mass: Double? = 120) -> Meteorite {
        Meteorite(
            id: id, name: "Test \(id)", recclass: "L6", mass: mass, fall: .found, year: 2001,
            geolocation: located ? Geolocation(latitude: -76.5, longitude: 159.5) : nil)
    }
}
