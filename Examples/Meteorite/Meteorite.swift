import Repositories

/// A meteorite landing, with the fields of NASA's Meteorite Landings list that the
/// article's `Meteorite` model reads. Codable with an `Int` ID, so it fits a SQLite row and
/// a REST collection alike.
struct Meteorite: Identifiable, Codable, Sendable, Equatable {
    /// Whether the meteorite was seen falling or found later.
    enum Fall: String, Codable, Sendable, QueryableValue {
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

extension Meteorite: QueryableEntity {
    /// The properties a store can filter and sort by where the data is: the list screen's
    /// location test, its order by mass, and the search field's name prefix.
    static let queryableFields: [QueryableField<Meteorite>] = [
        QueryableField(\.name, name: "name"),
        QueryableField(\.recclass, name: "recclass"),
        QueryableField(\.mass, name: "mass"),
        QueryableField(\.fall, name: "fall"),
        QueryableField(\.year, name: "year"),
        QueryableField(\.geolocation?.latitude, name: "latitude"),
    ]
}

extension Query where Entity == Meteorite {
    /// The article's list: only the meteorites with a location (its `getDbInfo` filters
    /// `$0.geolocation != nil`), as a condition on a declared field, so a store with indexes
    /// answers it without reading the others.
    static var geolocated: Query<Meteorite> { Query().where(\.geolocation?.latitude != nil) }

    /// The search field: the meteorites whose name starts with `prefix` (case-sensitive), in
    /// name order, at most `limit`.
    static func named(startingWith prefix: String, limit: Int = 10) -> Query<Meteorite> {
        Query().where(.hasPrefix(\.name, prefix)).sorted(by: \.name).limit(limit)
    }

    /// The heaviest meteorites on the map, heaviest first.
    static func heaviestGeolocated(_ limit: Int) -> Query<Meteorite> {
        geolocated.sorted(by: \.mass, .descending).limit(limit)
    }
}
