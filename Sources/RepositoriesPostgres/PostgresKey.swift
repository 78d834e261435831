import Foundation
import Repositories

/// An entity's ID as stored in the `id` column: a `bigint` for integer ID types, `text` for
/// every other.
///
/// | ID | column | stored as |
/// |---|---|---|
/// | `Int`, `Int64`, `Int32`, `Int16`, `Int8`, `UInt32`, `UInt16`, `UInt8` | `bigint` | the number |
/// | `String` | `text` | the string in Unicode Normalization Form C |
/// | `UUID` | `text` | `uuidString` (as its `Codable` form writes it) |
/// | anything else (`UInt64`, a struct, an enum) | `text` | its JSON, keys sorted, in NFC |
///
/// The column is `COLLATE "C"`, so PostgreSQL compares keys byte by byte, while Swift's
/// `String` equality is Unicode canonical equivalence: `"caf\u{E9}"` and `"cafe\u{301}"` are
/// one ID to Swift. NFC gives every spelling of a string one key, so equal IDs are one row.
/// The body keeps the ID as it was saved.
enum PostgresKey: Hashable, Sendable, CustomStringConvertible {
    case integer(Int64)
    case text(String)

    /// Whether `type`'s keys live in a `bigint` column: the integer types whose every value
    /// fits in 64 signed bits.
    static func isInteger(_ type: Any.Type) -> Bool {
        type == Int.self || type == Int64.self || type == Int32.self || type == Int16.self
            || type == Int8.self || type == UInt32.self || type == UInt16.self || type == UInt8.self
    }

    /// The key stored for `id`.
    ///
    /// - Throws: the encoder's error when the ID is none of the native kinds and cannot be
    ///   encoded as JSON.
    init<ID: Encodable>(_ id: ID) throws {
        switch id {
        case let value as Int: self = .integer(Int64(value))
        case let value as String: self = .text(Self.canonical(value))
        case let value as UUID: self = .text(value.uuidString)
        case let value as any BinaryInteger where Self.isInteger(ID.self):
            self = .integer(Int64(value))
        case let value as any BinaryInteger:
            self = .text(String(value))
        default:
            self = .text(try CanonicalText.keyJSON(id))
        }
    }

    /// The ID a key was made from, as `==` sees it: what the change feed hands out for the
    /// keys in a notification. `nil` when the key cannot be one of `ID`'s (another writer put
    /// something else in the table).
    func id<ID: Decodable>(as type: ID.Type) -> ID? {
        switch self {
        case .integer(let value):
            if ID.self == Int.self { return Int(exactly: value) as? ID }
            if let id = value as? ID { return id }
            return try? JSONDecoder().decode(ID.self, from: Data(String(value).utf8))  // not an ID: nil
        case .text(let value):
            if let id = value as? ID { return id }
            if ID.self == UUID.self { return UUID(uuidString: value) as? ID }
            if let number = UInt64(value), let id = number as? ID { return id }
            return try? JSONDecoder().decode(ID.self, from: Data(value.utf8))  // not an ID: nil
        }
    }

    /// `text` in its one spelling (NFC; see `CanonicalText`).
    static func canonical(_ text: String) -> String { CanonicalText.canonical(text) }

    /// The value as `psql` shows it: `42`, `note-1`.
    var description: String {
        switch self {
        case .integer(let value): String(value)
        case .text(let value): value
        }
    }
}

extension PostgresKey {
    /// The key as an element of a notification's JSON array: a number, or a JSON string.
    var jsonText: String {
        switch self {
        case .integer(let value):
            return String(value)
        case .text(let value):
            var escaped = "\""
            for scalar in value.unicodeScalars {
                switch scalar {
                case "\"": escaped += "\\\""
                case "\\": escaped += "\\\\"
                case _ where scalar.value < 0x20:
                    escaped +=
                        "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                        + String(scalar.value, radix: 16)
                default: escaped.unicodeScalars.append(scalar)
                }
            }
            return escaped + "\""
        }
    }
}
