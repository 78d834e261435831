import Foundation
import Repositories

/// A stand-in for NASA's Meteorite Landings list, the article's data set: as many records,
/// with its proportions, the same on every run for a given seed.
///
/// - **Size**: 45,716 records, as NASA's list.
/// - **Location**: exactly 7,315 records have none (`geolocation == nil`), as many as NASA's
///   list has without coordinates; the positions are shuffled by the seed. NASA's list also
///   places about 6,200 finds at 0°, 0° where the location is unknown; this generator never
///   does, so "geolocated" means "has a real location", with no special case for 0°, 0°.
///   Most records without a location are Northwest Africa desert finds, as in NASA's list.
/// - **Sites**: finds cluster where meteorites are collected (the Antarctic ice fields,
///   the hot deserts), with falls scattered worldwide.
/// - **Mass**: log-normal in grams (most finds weigh tens of grams, a few tonnes), falls and
///   irons heavier, capped at Hoba's 60 tonnes; about 0.3% have no mass.
/// - **Class**: drawn with the weights of the commonest classes in NASA's list (L6, H5, L5…).
/// - **Fall**: about 2.4% were seen falling, in inhabited regions (named after made-up
///   towns). **Year**: the site's collecting years (the Antarctic since 1969, the hot
///   deserts since the late 1980s, falls since 1800); about 0.6% unknown.
struct MeteoriteGenerator {
    /// How many records NASA's list holds.
    static let nasaCount = 45_716
    /// How many of them have no coordinates.
    static let nasaWithoutLocation = 7_315

    /// Fixes every random choice.
    var seed: UInt64 = 1

    /// The data set: `count` meteorites, `withoutLocation` of them without coordinates, with
    /// IDs 1 through `count`.
    func generate(count: Int = nasaCount, withoutLocation: Int = nasaWithoutLocation) -> [Meteorite] {
        var random = SeededRandomNumberGenerator(seed: seed)
        let unlocated = Self.positions(of: min(withoutLocation, count), among: count, using: &random)
        var names = MeteoriteNames()
        var meteorites: [Meteorite] = []
        meteorites.reserveCapacity(count)
        for index in 0..<count {
            let hasLocation = !unlocated[index]
            let fall: Meteorite.Fall = Double.random(in: 0..<1, using: &random) < 0.024 ? .fell : .found
            let sites =
                hasLocation
                ? (fall == .fell ? MeteoriteSite.falls : MeteoriteSite.finds) : MeteoriteSite.unlocated
            let site = sites.pick(using: &random)
            let recclass = MeteoriteClass.all.pick(using: &random).name
            meteorites.append(
                Meteorite(
                    id: index + 1,
                    name: names.name(at: site, using: &random),
                    recclass: recclass,
                    mass: Self.mass(recclass: recclass, fall: fall, using: &random),
                    fall: fall,
                    year: Self.year(at: site, using: &random),
                    geolocation: hasLocation ? site.scatter(using: &random) : nil))
        }
        return meteorites
    }

    /// `marked` positions out of `count`, chosen at random: `true` where marked.
    private static func positions(
        of marked: Int, among count: Int, using random: inout SeededRandomNumberGenerator
    ) -> [Bool] {
        var flags = Array(repeating: true, count: marked) + Array(repeating: false, count: count - marked)
        flags.shuffle(using: &random)
        return flags
    }

    /// A log-normal mass in grams, rounded to centigrams; `nil` for about 0.3%.
    private static func mass(
        recclass: String, fall: Meteorite.Fall, using random: inout SeededRandomNumberGenerator
    ) -> Double? {
        guard Double.random(in: 0..<1, using: &random) >= 0.003 else { return nil }
        // log10 of the mass in grams: finds weigh tens of grams, falls about a kilogram, and
        // irons (which survive the ground for millennia) spread up to tonnes.
        let isIron = recclass.hasPrefix("Iron") || recclass == "Pallasite"
        let mean = (fall == .fell ? 3.0 : 1.4) + (isIron ? 2.4 : 0)
        let spread = isIron ? 1.3 : 1.1
        let log10Grams = min(max(mean + spread * normal(using: &random), -2), log10(60_000_000))
        return (pow(10, log10Grams) * 100).rounded() / 100
    }

    /// A year of the site's collecting years; `nil` for about 0.6%.
    private static func year(at site: MeteoriteSite, using random: inout SeededRandomNumberGenerator) -> Int?
    {
        guard Double.random(in: 0..<1, using: &random) >= 0.006 else { return nil }
        return Int.random(in: site.years, using: &random)
    }

    /// A standard normal draw (Box–Muller).
    static func normal(using random: inout SeededRandomNumberGenerator) -> Double {
        let u1 = Double.random(in: Double.ulpOfOne..<1, using: &random)
        let u2 = Double.random(in: 0..<1, using: &random)
        return (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }
}
