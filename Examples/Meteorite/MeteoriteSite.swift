import Repositories

/// A place where meteorites are recovered: its name (the prefix of the meteorites' names),
/// the first number given there, its centre and spread, the years of recovery, and how
/// often the generator picks it.
struct MeteoriteSite: Weighted {
    /// How the meteorites of a site are named.
    enum Naming: Sendable {
        /// `Allan Hills 84001`: the site's name and a running number, as collections are.
        case numbered(first: Int)
        /// A town's name, as falls are: `Aachen`.
        case town
    }

    var name: String
    var naming: Naming
    var latitude: Double
    var longitude: Double
    /// Half the width of the area, in degrees.
    var spread: Double
    var years: ClosedRange<Int>
    var weight: Int

    /// A location near the site's centre, to five decimals.
    func scatter(using random: inout SeededRandomNumberGenerator) -> Meteorite.Geolocation {
        let latitude = self.latitude + Double.random(in: -spread...spread, using: &random)
        let longitude = self.longitude + Double.random(in: -spread...spread, using: &random)
        let wrapped = (longitude + 540).truncatingRemainder(dividingBy: 360) - 180
        return Meteorite.Geolocation(
            latitude: (min(max(latitude, -90), 90) * 1e5).rounded() / 1e5,
            longitude: (wrapped * 1e5).rounded() / 1e5)
    }

    /// Where the finds with coordinates come from: mostly the Antarctic ice fields and the
    /// hot deserts, where collecting campaigns recover thousands.
    static let finds = WeightedTable(
        [
            MeteoriteSite("Yamato", .numbered(first: 790_001), -71.5, 35.67, 1.5, 1969...2010, 5_800),
            MeteoriteSite("Asuka", .numbered(first: 880_001), -72.0, 24.0, 1.5, 1986...2012, 2_400),
            MeteoriteSite("Allan Hills", .numbered(first: 76_001), -76.72, 159.67, 0.8, 1976...2013, 2_500),
            MeteoriteSite(
                "Elephant Moraine", .numbered(first: 79_001), -76.28, 157.2, 0.8, 1979...2013, 2_100),
            MeteoriteSite("Miller Range", .numbered(first: 90_001), -83.25, 157.5, 1.0, 1999...2013, 1_900),
            MeteoriteSite(
                "Queen Alexandra Range", .numbered(first: 90_001), -84.5, 168.0, 1.0, 1990...2013, 1_600),
            MeteoriteSite("Lewis Cliff", .numbered(first: 85_001), -84.28, 161.5, 0.6, 1985...2013, 1_400),
            MeteoriteSite("Grove Mountains", .numbered(first: 20_001), -72.9, 75.2, 0.8, 1998...2013, 1_200),
            MeteoriteSite("LaPaz Icefield", .numbered(first: 2_001), -86.36, -70.0, 0.8, 2002...2013, 1_100),
            MeteoriteSite("Meteorite Hills", .numbered(first: 78_001), -79.68, 155.7, 0.5, 1978...2013, 900),
            MeteoriteSite(
                "Frontier Mountain", .numbered(first: 84_001), -72.98, 160.4, 0.4, 1984...2013, 700),
            MeteoriteSite("Dhofar", .numbered(first: 1), 19.0, 54.5, 1.5, 1999...2013, 1_700),
            MeteoriteSite("Dar al Gani", .numbered(first: 1), 27.0, 16.3, 1.2, 1995...2013, 1_100),
            MeteoriteSite("Sayh al Uhaymir", .numbered(first: 1), 21.0, 57.3, 0.8, 2000...2013, 700),
            MeteoriteSite("Jiddat al Harasis", .numbered(first: 1), 19.6, 56.3, 0.8, 2000...2013, 500),
            MeteoriteSite("Acfer", .numbered(first: 1), 27.6, 4.3, 0.8, 1989...2013, 400),
            MeteoriteSite("Hammadah al Hamra", .numbered(first: 1), 28.6, 12.5, 0.8, 1990...2013, 300),
            MeteoriteSite("Catalina", .numbered(first: 1), -25.2, -69.7, 0.8, 2010...2013, 350),
            MeteoriteSite("Nullarbor", .numbered(first: 1), -30.5, 127.0, 3.0, 1960...2013, 350),
            MeteoriteSite("Roosevelt County", .numbered(first: 1), 34.0, -103.3, 0.5, 1967...2013, 150),
        ] + regions(weight: 500))

    /// Where falls come from: the inhabited world, where people see them come down.
    static let falls = WeightedTable(regions(weight: 1))

    /// Where the meteorites without coordinates come from: mostly desert finds bought from
    /// dealers, whose exact place is unknown.
    static let unlocated = WeightedTable([
        MeteoriteSite("Northwest Africa", .numbered(first: 1), 0, 0, 0, 2000...2013, 8_500),
        MeteoriteSite("Sahara", .numbered(first: 97_001), 0, 0, 0, 1997...2000, 1_000),
        MeteoriteSite("Yamato", .numbered(first: 980_001), 0, 0, 0, 1998...2010, 300),
        MeteoriteSite("Unknown locality", .numbered(first: 1), 0, 0, 0, 1850...2013, 200),
    ])

    /// The inhabited regions, each `weight` times its share.
    private static func regions(weight: Int) -> [MeteoriteSite] {
        [
            MeteoriteSite("Europe", .town, 48.0, 12.0, 12.0, 1800...2013, 30 * weight),
            MeteoriteSite("North America", .town, 40.0, -95.0, 15.0, 1800...2013, 25 * weight),
            MeteoriteSite("South Asia", .town, 22.0, 80.0, 8.0, 1800...2013, 15 * weight),
            MeteoriteSite("East Asia", .town, 34.0, 115.0, 10.0, 1800...2013, 15 * weight),
            MeteoriteSite("Africa", .town, 0.0, 25.0, 15.0, 1800...2013, 10 * weight),
            MeteoriteSite("South America", .town, -20.0, -60.0, 15.0, 1800...2013, 5 * weight),
        ]
    }

    private init(
        _ name: String, _ naming: Naming, _ latitude: Double, _ longitude: Double, _ spread: Double,
        _ years: ClosedRange<Int>, _ weight: Int
    ) {
        self.name = name
        self.naming = naming
        self.latitude = latitude
        self.longitude = longitude
        self.spread = spread
        self.years = years
        self.weight = weight
    }
}
