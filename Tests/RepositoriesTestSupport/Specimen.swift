import Foundation
import Repositories

/// An entity declaring a field of every kind, for the field-query tests of every store: text
/// in awkward spellings, an optional number that may be NaN or infinite, an integer, a
/// `Bool`, a raw-value enum, a date and an optional text.
public struct Specimen: Identifiable, Codable, Sendable, Equatable, QueryableEntity {
    /// A raw-value enum field.
    public enum Kind: String, Codable, Sendable, QueryableValue, CaseIterable {
        case stone, iron
        case stonyIron = "stony-iron"
    }

    /// The ID.
    public var id: Int
    /// Declared `name`: text in awkward spellings.
    public var name: String
    /// Declared `mass`: `nil`, NaN, ±0, infinity among its values.
    public var mass: Double?
    /// Declared `year`.
    public var year: Int
    /// Declared `fell`.
    public var fell: Bool
    /// Declared `kind`, a raw-value enum.
    public var kind: Kind
    /// Declared `found_at`.
    public var foundAt: Date
    /// Declared `note`, optional text.
    public var note: String?
    /// Not declared: conditions on it are refused.
    public var shelf: Int = 0

    /// A specimen of these values.
    public init(
        id: Int, name: String, mass: Double?, year: Int, fell: Bool, kind: Kind, foundAt: Date, note: String?,
        shelf: Int = 0
    ) {
        self.id = id
        self.name = name
        self.mass = mass
        self.year = year
        self.fell = fell
        self.kind = kind
        self.foundAt = foundAt
        self.note = note
        self.shelf = shelf
    }

    /// Every property but ``shelf``.
    public static let queryableFields: [QueryableField<Specimen>] = [
        QueryableField(\.name, name: "name"),
        QueryableField(\.mass, name: "mass"),
        QueryableField(\.year, name: "year"),
        QueryableField(\.fell, name: "fell"),
        QueryableField(\.kind, name: "kind"),
        QueryableField(\.foundAt, name: "found_at"),
        QueryableField(\.note, name: "note"),
    ]

    /// Names with the spellings Swift's own `String` `<` orders inconsistently on Linux
    /// (a decomposed letter beside its precomposed form, U+0344, U+0F73), ASCII, CJK, emoji,
    /// and the characters a SQL `LIKE` would read as patterns.
    public static let names = [
        "Allende", "allende", "Aba", "Ab", "Ñ", "N\u{303}a", "Éa", "E\u{301}b", "éa", "e\u{301}", "é",
        "A\u{30A}", "Åa", "\u{344}", "\u{308}\u{301}x", "\u{F73}", "\u{F71}\u{F72}", "東京", "🚀x", "Z", "",
        "%a", "_b",
    ]

    /// Puts `specimen` in `reference` as a store keeps it: in place of the one with its ID,
    /// or after every other.
    public static func save(_ specimen: Specimen, into reference: inout [Specimen]) {
        if let index = reference.firstIndex(where: { $0.id == specimen.id }) {
            reference[index] = specimen
        } else {
            reference.append(specimen)
        }
    }

    /// A specimen with values drawn from `random`, among them `nil`, NaN, ±0, infinity and
    /// dates a fraction of a second apart.
    public static func random(_ id: Int, _ random: inout SeededRandomNumberGenerator) -> Specimen {
        let masses: [Double?] = [nil, 0, -0.0, 1.5, 2, 10, -3, .nan, .infinity, 1e300]
        return Specimen(
            id: id, name: names.randomElement(using: &random)!, mass: masses.randomElement(using: &random)!,
            year: Int.random(in: 1_990...1_999, using: &random), fell: Bool.random(using: &random),
            kind: Kind.allCases.randomElement(using: &random)!,
            foundAt: Date(
                timeIntervalSince1970: Double(Int.random(in: 0..<5, using: &random)) * 86_400
                    + [0, 0.001, 1e-6].randomElement(using: &random)!),
            note: Bool.random(using: &random) ? nil : names.randomElement(using: &random)!,
            shelf: id % 3)
    }

    /// Queries over every operator, `nil`, NaN, unicode prefixes, both sort directions with
    /// ties, offsets and limits, mixed with closure filters and computed sort keys; each with
    /// a name for messages.
    public static func randomQueries(_ random: inout SeededRandomNumberGenerator) -> [(
        String, Query<Specimen>
    )] {
        let year = Int.random(in: 1_990...1_999, using: &random)
        let mass = [0, 1.5, 2, -3, .nan, .infinity].randomElement(using: &random)!
        let name = names.randomElement(using: &random)!
        let limit = Int.random(in: 0...8, using: &random)
        let offset = Int.random(in: 0...3, using: &random)
        return [
            ("year == \(year)", Query().where(\.year == year)),
            ("year != \(year)", Query().where(\.year != year)),
            (
                "year < \(year) sorted year desc limit",
                Query().where(\.year < year).sorted(by: \.year, .descending).limit(limit)
            ),
            (
                "year >= \(year) sorted year offset limit",
                Query().where(\.year >= year).sorted(by: \.year).offset(offset).limit(limit)
            ),
            ("mass > \(mass)", Query().where(\.mass > mass).sorted(by: \.mass)),
            (
                "mass <= \(mass) desc",
                Query().where(\.mass <= mass).sorted(by: \.mass, .descending).limit(limit)
            ),
            ("mass == nil", Query().where(\.mass == nil)),
            ("isNil(mass)", Query().where(.isNil(\.mass)).sorted(by: \.year).limit(limit)),
            (
                "mass != nil sorted mass",
                Query().where(\.mass != nil).sorted(by: \.mass).sorted(by: \.name, .descending)
            ),
            ("mass == \(mass)", Query().where(\.mass == mass)),
            ("prefix \(name)", Query().where(.hasPrefix(\.name, String(name.prefix(1)))).sorted(by: \.name)),
            ("prefix full \(name)", Query().where(.hasPrefix(\.name, name)).limit(limit)),
            ("note prefix", Query().where(.hasPrefix(\.note, "E\u{301}")).sorted(by: \.note, .descending)),
            ("name == \(name)", Query().where(\.name == name)),
            ("name < \(name) sorted", Query().where(\.name < name).sorted(by: \.name).limit(limit)),
            ("kind in", Query().where(.isIn(\.kind, [.iron, .stonyIron])).sorted(by: \.kind).offset(offset)),
            ("kind sorted", Query().sorted(by: \.kind, .descending).sorted(by: \.year).limit(limit)),
            ("fell", Query().where(\.fell == true).sorted(by: \.foundAt, .descending).limit(limit)),
            (
                "or/not",
                Query().where(.all(\.year >= year, .any(\.fell == false, .not(\.mass > 1.5)))).sorted(
                    by: \.year)
            ),
            (
                "year in + filter",
                Query().where(.isIn(\.year, [year, year + 1])).filter { $0.id % 2 == 0 }.limit(limit)
            ),
            ("note nil first", Query().sorted(by: \.note).offset(offset).limit(limit)),
            (
                "closure sort after condition",
                Query().where(\.year <= year).sorted(by: SortKey(by: { $0.id % 5 })).limit(limit)
            ),
            ("empty in", Query().where(.isIn(\.name, []))),
            ("not empty in", Query().where(.not(.isIn(\.name, []))).limit(limit)),
            ("not in with nil", Query().where(.not(.isIn(\.note, [nil, name]))).sorted(by: \.note)),
            ("in with nil", Query().where(.isIn(\.note, [nil, name, "Z"])).sorted(by: \.note, .descending)),
            ("not in", Query().where(.not(.isIn(\.note, [name, "Z"]))).sorted(by: \.year).limit(limit)),
            ("not prefix", Query().where(.not(.hasPrefix(\.note, String(name.prefix(1)))))),
            ("not empty prefix", Query().where(.not(.hasPrefix(\.note, "")))),
            ("not mass < \(mass)", Query().where(.not(\.mass < mass)).sorted(by: \.mass)),
            ("not mass >= \(mass)", Query().where(.not(\.mass >= mass)).sorted(by: \.mass, .descending)),
            ("not nil", Query().where(.not(.isNil(\.mass))).sorted(by: \.mass).offset(offset)),
            (
                "not any of all",
                Query().where(.not(.any(.all(\.fell == true, \.year > year), \.kind == .iron, .any())))
                    .sorted(by: \.kind).sorted(by: \.foundAt, .descending)
            ),
            ("not all empty", Query().where(.not(.all()))),
            (
                "date range",
                Query().where(\.foundAt >= Date(timeIntervalSince1970: 86_400)).sorted(by: \.foundAt)
            ),
        ]
    }
}
