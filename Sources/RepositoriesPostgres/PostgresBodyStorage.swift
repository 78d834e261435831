import Foundation
import Repositories

/// How a table keeps its entities' JSON: decided when the table is created, and read from its
/// `body` column's type each time it is opened, so a table keeps the format it was made with.
enum PostgresBodyStorage: Sendable, Equatable {
    /// `jsonb`, dates as ISO 8601 text: what this release creates. SQL can read and index it
    /// (`body->>'name'`), and PostgreSQL refuses a few values JSON from Swift may hold (see
    /// ``PostgresJSONCheck``).
    case jsonb
    /// `bytea` holding the JSON's bytes, dates as `JSONEncoder`'s default (seconds since
    /// 2001): tables earlier releases created.
    case bytea

    /// The storage of a `body` column of SQL type `type` (as `format_type` writes it), or
    /// `nil` for any other type.
    init?(columnType type: String) {
        switch type {
        case "jsonb": self = .jsonb
        case "bytea": self = .bytea
        default: return nil
        }
    }

    /// The column's SQL type.
    var columnType: String {
        switch self {
        case .jsonb: "jsonb"
        case .bytea: "bytea"
        }
    }

    /// The SQL that turns `parameter`, the JSON's UTF-8 bytes sent as `bytea`, into the
    /// column's value. Every statement sends bodies as bytes, whatever the table keeps.
    func value(of parameter: String) -> String {
        switch self {
        case .jsonb: "convert_from(\(parameter), 'UTF8')::jsonb"
        case .bytea: parameter
        }
    }

    /// The SQL that reads the column `column` back as the JSON's UTF-8 bytes. A `text` sent
    /// in binary format is its bytes in the client encoding, which every connection sets to
    /// UTF-8 (``PostgresConnectionTarget``), so `jsonb` needs only its cast to text: a
    /// `convert_to` would copy each body once more on the server.
    func bytes(of column: String) -> String {
        switch self {
        case .jsonb: "\(column)::text"
        case .bytea: column
        }
    }

    /// The encoder for this storage when the options name none: `jsonb` writes dates as ISO
    /// 8601 in UTC with nine digits of fraction (`2024-05-01T09:30:00.250000000Z`), which
    /// sort as text in time order and read back to the same `Date`.
    func defaultEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        if self == .jsonb { encoder.dateEncodingStrategy = InternetDate.encodingStrategy(.fixedNanoseconds) }
        return encoder
    }

    /// The decoder for this storage when the options name none: `jsonb` reads ISO 8601
    /// dates, with any fraction and any zone offset, as SQL may have written them.
    func defaultDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        if self == .jsonb { decoder.dateDecodingStrategy = InternetDate.decodingStrategy }
        return decoder
    }
}
