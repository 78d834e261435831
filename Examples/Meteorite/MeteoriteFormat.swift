import Foundation

/// How the example prints a meteorite: one aligned row.
enum MeteoriteFormat {
    /// `Allan Hills 84001     1.9 kg  Martian (shergottite)  Found  1984  -76.91°, 156.02°`.
    static func row(_ meteorite: Meteorite) -> String {
        let columns = [
            meteorite.name.padding(toLength: 22, withPad: " ", startingAt: 0),
            leftPadded(meteorite.mass.map(mass) ?? "?", to: 8),
            meteorite.recclass.padding(toLength: 12, withPad: " ", startingAt: 0),
            meteorite.fall.rawValue.padding(toLength: 5, withPad: " ", startingAt: 0),
            meteorite.year.map(String.init) ?? "----",
            meteorite.geolocation.map(place) ?? "no location",
        ]
        return columns.joined(separator: "  ")
    }

    private static func leftPadded(_ text: String, to width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
    }

    /// Grams in the unit that reads best: `450 g`, `12.3 kg`, `60.0 t`.
    static func mass(_ grams: Double) -> String {
        if grams >= 1_000_000 { return String(format: "%.1f t", grams / 1_000_000) }
        if grams >= 1_000 { return String(format: "%.1f kg", grams / 1_000) }
        return String(format: "%.0f g", grams)
    }

    /// `-76.72°, 159.67°`.
    static func place(_ location: Meteorite.Geolocation) -> String {
        String(format: "%.2f°, %.2f°", location.latitude, location.longitude)
    }
}
