import Foundation
import Repositories

/// An entity's ID as stored in the `id` column: an SQLite INTEGER or TEXT value.
///
/// The column has no declared type, so SQLite stores each value as bound and never converts
/// between the two (the TEXT `"42"` and the INTEGER `42` stay different keys). For one ID type
/// the mapping is injective and deterministic:
///
/// | ID | stored as |
/// |---|---|
/// | an integer that fits in 64 bits (`Int`, `UInt32`, …) | INTEGER |
/// | `String` | TEXT, in Unicode Normalization Form C |
/// | `UUID` | TEXT, `uuidString` (as its `Codable` form writes it) |
/// | anything else (`UInt64` past `Int64.max`, a struct, an enum) | TEXT: its JSON, keys sorted, in NFC |
///
/// So the column reads naturally in any SQLite tool (`WHERE id = 42`, `WHERE id = 'note-1'`).
///
/// Text keys are canonical because SQLite compares text byte by byte, while Swift's `String`
/// equality is Unicode canonical equivalence: `"caf\u{E9}"` and `"cafe\u{301}"` are one ID
/// to Swift, two byte strings to SQLite. NFC maps every spelling of a string to one, so equal
/// IDs get one key and one row. Only the key is normalized; the body keeps the entity's ID as
/// it was saved. JSON keys are normalized whole, which normalizes each string inside: the
/// structural characters of JSON never combine with their neighbours, so normalizing the text
/// changes only what lies inside its strings. Text with no character from U+0300 on (any ASCII
/// key among them) is already in NFC and is stored as it is, without the cost of normalizing.
enum SQLiteKey: Hashable, Sendable, CustomStringConvertible {
    case integer(Int64)
    case text(String)

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
            self = .text(Self.canonical(value))
        case let value as UUID:
            self = .text(value.uuidString)
        case let value as any BinaryInteger:
            if let exact = Int64(exactly: value) {
                self = .integer(exact)
            } else {
                self = .text(String(value))
            }
        default:
            self = .text(try CanonicalText.keyJSON(id))
        }
    }

    /// `text` in its one spelling (NFC; see `CanonicalText`).
    static func canonical(_ text: String) -> String { CanonicalText.canonical(text) }

    /// Whether `text` is in NFC as it is, without normalizing it.
    static func isCanonicalAsItIs(_ text: String) -> Bool { CanonicalText.isCanonicalAsItIs(text) }

    /// Whether every key of `type` is an INTEGER, or ASCII text, so canonical by construction:
    /// opening need not look for keys an earlier version stored in another spelling.
    static func isAlwaysCanonical(_ type: Any.Type) -> Bool {
        type is any BinaryInteger.Type || type == UUID.self
    }

    /// The value as an SQLite tool shows it: `42`, `note-1`.
    var description: String {
        switch self {
        case .integer(let value): String(value)
        case .text(let value): value
        }
    }
}
