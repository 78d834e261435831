import Testing

@testable import Meteorite

/// The data set: as large as NASA's list, with its share of records without a location,
/// and the same for the same seed.
@Suite struct MeteoriteGeneratorTests {
    /// Generated once for the whole suite, not once per test.
    private static let meteorites = MeteoriteGenerator().generate()
    private var meteorites: [Meteorite] { Self.meteorites }

    @Test func holdsAsManyRecordsAsNASAsListWithTheSameShareWithoutLocation() {
        #expect(meteorites.count == 45_716)
        #expect(meteorites.filter(\.isGeolocated).count == 38_401)
        #expect(meteorites.filter { !$0.isGeolocated }.count == 7_315)
    }

    @Test func theSameSeedGivesTheSameRecords() {
        #expect(MeteoriteGenerator(seed: 1).generate() == meteorites)
        #expect(
            MeteoriteGenerator(seed: 7).generate(count: 500)
                == MeteoriteGenerator(seed: 7).generate(count: 500))
    }

    @Test func anotherSeedGivesOtherRecords() {
        let other = MeteoriteGenerator(seed: 2).generate()
        #expect(other.count == meteorites.count)
        #expect(other != meteorites)
        #expect(other.filter(\.isGeolocated).count == 38_401)
    }

    @Test func idsAndNamesAreUnique() {
        #expect(meteorites.map(\.id) == Array(1...45_716))
        #expect(Set(meteorites.map(\.name)).count == meteorites.count)
    }

    @Test func valuesLookLikeNASAs() {
        let masses = meteorites.compactMap(\.mass).sorted()
        #expect(masses.allSatisfy { $0 > 0 && $0 <= 60_000_000 })
        let median = masses[masses.count / 2]
        #expect((10...100).contains(median), "most finds weigh tens of grams, not \(median) g")
        #expect(masses.last! > 1_000_000, "a few weigh tonnes")
        let falls = meteorites.filter { $0.fall == .fell }.count
        #expect((800...1_400).contains(falls), "about 2.4% were seen falling, not \(falls)")
        for location in meteorites.compactMap(\.geolocation) {
            #expect((-90...90).contains(location.latitude) && (-180...180).contains(location.longitude))
        }
    }
}
