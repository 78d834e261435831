import Foundation
import Repositories

/// The conformance suite's own fixture entity: a value shaped to trip a careless store.
///
/// It carries an `Int` ID, a title with combining marks, emoji, quotes, a newline and a NUL
/// character, a whole-second `Date`, optionals that are sometimes `nil`, a nested value with
/// an array, and, for some indexes, a payload of 128 KiB.
///
/// It declares six fields (`QueryableEntity`), so the suite's
/// ``ConformanceLaw/declaredFieldQueriesMatchReference`` runs on every store: `title`
/// (unicode text), `revision`, `rank` (shared by several entities), `updated_at`, and the
/// optionals `note` and `score`.
///
/// ``make(index:revision:)`` fixes the ID by `index` and changes every other field with
/// `revision`, so two revisions of one index are different values of one entity.
/// ``unencodable(index:)`` returns an entity whose `encode(to:)` throws, which the suite uses
/// to make a batch fail inside a store that encodes.
public struct ConformanceEntity: Identifiable, Codable, Sendable, Hashable {
    /// A value nested inside the entity.
    public struct Detail: Codable, Sendable, Hashable {
        /// A label that is sometimes absent.
        public var label: String?
        /// A short list of numbers.
        public var measurements: [Double]
    }

    /// The identity, equal to the index the entity was made from.
    public var id: Int
    /// A title with unicode, quotes, a newline and a NUL character.
    public var title: String
    /// The revision the entity was made from.
    public var revision: Int
    /// A number the query laws sort on; several entities share each value.
    public var rank: Int
    /// A whole-second date, so any date encoding strategy round-trips it.
    public var updatedAt: Date
    /// An optional note, `nil` for some revisions.
    public var note: String?
    /// An optional score, `nil` for some indexes.
    public var score: Double?
    /// A nested value.
    public var detail: Detail
    /// A large text for some indexes (128 KiB), empty for the rest.
    public var payload: String
    /// Whether `encode(to:)` throws; never encoded itself.
    public var refusesEncoding: Bool

    /// ``make(index:revision:)`` without the NUL character in the title: for a store that
    /// cannot keep U+0000 in a string and refuses it with `encodingFailed` (PostgreSQL's
    /// `jsonb` and `text`), passed as the suite's `makeEntity`.
    ///
    /// ```swift
    /// RepositoryConformance(makeRepository: { … }, makeEntity: ConformanceEntity.makeWithoutNUL)
    /// ```
    public static func makeWithoutNUL(index: Int, revision: Int) -> ConformanceEntity {
        var entity = make(index: index, revision: revision)
        entity.title = entity.title.replacingOccurrences(of: "\u{0}", with: "")
        return entity
    }

    /// The entity with ID `index` at `revision`.
    public static func make(index: Int, revision: Int) -> ConformanceEntity {
        ConformanceEntity(
            id: index,
            title: "Entité №\(index) «r\(revision)» — 東京 🚀 👩‍👩‍👧 e\u{301} \"quoted\"\nline two\u{0}end",
            revision: revision,
            rank: (index * 7 + revision) % 5,
            updatedAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(index * 1_000 + revision)),
            note: revision % 3 == 2 ? nil : "note \(revision) for \(index)",
            score: index % 4 == 3 ? nil : Double(index) * 1.5 + Double(revision) / 8,
            detail: Detail(
                label: index % 2 == 0 ? "even" : nil,
                measurements: (0..<(index % 4)).map { Double($0) + Double(revision) }),
            payload: index % 64 == 7
                ? String(repeating: "payload \(revision) ", count: 128 * 1_024 / 10) : "",
            refusesEncoding: false)
    }

    /// An entity with ID `index` whose `encode(to:)` throws ``EncodingRefused``.
    public static func unencodable(index: Int) -> ConformanceEntity {
        var entity = make(index: index, revision: 9_999)
        entity.refusesEncoding = true
        return entity
    }

    /// The error an ``unencodable(index:)`` entity throws when encoded.
    public struct EncodingRefused: Error, CustomStringConvertible {
        /// The ID of the entity that refused.
        public var id: Int
        /// Says which entity refused.
        public var description: String {
            "ConformanceEntity \(id) refuses to be encoded (a deliberate fault)"
        }
    }

    private enum CodingKeys: String, CodingKey {
        case id, title, revision, rank, updatedAt, note, score, detail, payload
    }

    /// Decodes an entity; the decoded entity always encodes.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(Int.self, forKey: .id)
        title = try container.decode(String.self, forKey: .title)
        revision = try container.decode(Int.self, forKey: .revision)
        rank = try container.decode(Int.self, forKey: .rank)
        updatedAt = try container.decode(Date.self, forKey: .updatedAt)
        note = try container.decodeIfPresent(String.self, forKey: .note)
        score = try container.decodeIfPresent(Double.self, forKey: .score)
        detail = try container.decode(Detail.self, forKey: .detail)
        payload = try container.decode(String.self, forKey: .payload)
        refusesEncoding = false
    }

    /// Encodes the entity, or throws ``EncodingRefused`` when it was made by
    /// ``unencodable(index:)``.
    public func encode(to encoder: any Encoder) throws {
        if refusesEncoding { throw EncodingRefused(id: id) }
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(title, forKey: .title)
        try container.encode(revision, forKey: .revision)
        try container.encode(rank, forKey: .rank)
        try container.encode(updatedAt, forKey: .updatedAt)
        try container.encodeIfPresent(note, forKey: .note)
        try container.encodeIfPresent(score, forKey: .score)
        try container.encode(detail, forKey: .detail)
        try container.encode(payload, forKey: .payload)
    }

    private init(
        id: Int, title: String, revision: Int, rank: Int, updatedAt: Date, note: String?, score: Double?,
        detail: Detail, payload: String, refusesEncoding: Bool
    ) {
        self.id = id
        self.title = title
        self.revision = revision
        self.rank = rank
        self.updatedAt = updatedAt
        self.note = note
        self.score = score
        self.detail = detail
        self.payload = payload
        self.refusesEncoding = refusesEncoding
    }
}

extension ConformanceEntity: QueryableEntity {
    /// `title`, `revision`, `rank`, `updated_at`, `note` and `score`.
    public static let queryableFields: [QueryableField<ConformanceEntity>] = [
        QueryableField(\.title, name: "title"),
        QueryableField(\.revision, name: "revision"),
        QueryableField(\.rank, name: "rank"),
        QueryableField(\.updatedAt, name: "updated_at"),
        QueryableField(\.note, name: "note"),
        QueryableField(\.score, name: "score"),
    ]
}
