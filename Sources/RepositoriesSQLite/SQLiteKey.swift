import Foundation

/// An entity's ID as stored in the `id` column: an SQLite INTEGER or TEXT value.
///
/// The column has no declared type, so SQLite stores each value as bound and never converts
/// between the two (the TEXT `"42"` and the INTEGER `42` stay different keys). For one ID type
/// the mapping is injective and deterministic:
///
/// | ID | stored as |
/// |---|---|
/// | an integer that fits in 64 bits (`Int`, `UInt32`, …) | INTEGER |
/// | `String` | TEXT, as it is |
/// | `UUID` | TEXT, `uuidString` (as its `Codable` form writes it) |
/// | anything else (`UInt64` past `Int64.max`, a struct, an enum) | TEXT: its JSON, keys sorted |
///
/// So the column reads naturally in any SQLite tool (`WHERE id = 42`, `WHERE id = 'note-1'`).
enum SQLiteKey: Hashable, Sendable, CustomStringConvertible {
    case integer(Int64)
    case text(String)

    /// The JSON form of IDs that are neither integers, strings nor UUIDs. Fixed, rather than
    /// the caller's encoder, so that the key of a stored row never depends on coder options.
    private static let fallbackEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// The key stored for `id`.
    ///
    /// - Throws: the encoder's error when the ID is none of the native kinds and cannot be
    ///   encoded as JSON.
    init(_ id: some Encodable) throws {
        switch id {
        case let value as Int:
            // The most common ID, first: a cast to a concrete type costs less than the
            // existential one below.
            self = .integer(Int64(value))
        case let value as String:
            self = .text(value)
        case let value as UUID:
            self = .text(value.uuidString)
        case let value as any BinaryInteger:
            if let exact = Int64(exactly: value) {
                self = .integer(exact)
            } else {
                self = .text(String(value))
            }
        default:
            let json = try Self.fallbackEncoder.encode(id)
            self = .text(String(decoding: json, as: UTF8.self))
        }
    }

    /// The value as an SQLite tool shows it: `42`, `note-1`.
    var description: String {
        switch self {
        case .integer(let value): String(value)
        case .text(let value): value
        }
    }
}
