import Repositories

/// A meteorite landing, with the fields of NASA's Meteorite Landings list that the
/// article's `Meteorite` model reads. Codable with an `Int` ID, so it fits a SQLite row and
/// a REST collection alike.
struct Meteorite: Identifiable, Codable, Sendable, Equatable {
    /// Whether the meteorite was seen falling or found later.
    enum Fall: String, Codable, Sendable {
        /// Seen falling, then collected.
        case fell = "Fell"
        /// Found on the ground.
        case found = "Found"
    }

    /// Where a meteorite was recovered (NASA's `reclat`, `reclong` and `geolocation`).
    struct Geolocation: Codable, Sendable, Equatable {
        /// Degrees north (negative: south).
        var latitude: Double
        /// Degrees east (negative: west).
        var longitude: Double
    }

    /// NASA's identifier.
    let id: Int
    /// The official name: a place, often with a number (`Allan Hills 84001`).
    var name: String
    /// The classification, such as `L6`, `H5` or `Iron, IIIAB`.
    var recclass: String
    /// The recovered mass in grams, when known.
    var mass: Double?
    /// Fell or found.
    var fall: Fall
    /// The year it fell or was found, when known.
    var year: Int?
    /// Where it was recovered, when known: the article lists only those that have one.
    var geolocation: Geolocation?

    /// Whether the meteorite can go on a map.
    var isGeolocated: Bool { geolocation != nil }
}

extension Query where Entity == Meteorite {
    /// The article's list: only the meteorites with a location (its `getDbInfo` filters
    /// `$0.geolocation != nil`).
    static var geolocated: Query<Meteorite> { Query().filter(\.isGeolocated) }
}
