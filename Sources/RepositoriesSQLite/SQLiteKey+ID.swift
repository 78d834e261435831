import Foundation

extension SQLiteKey {
    /// The ID of `type` this key was stored for (see ``init(_:)``): what a tombstone of the
    /// change feed hands back, where no body holds the ID.
    ///
    /// A text key is the ID's canonical spelling (NFC), so the ID read back equals the one
    /// saved as Swift compares them, though its bytes may differ.
    ///
    /// - Throws: ``NotAnID`` when the key cannot be an ID of `type` (it was not stored for
    ///   one: the column was damaged or written by hand).
    func id<ID: Decodable>(as type: ID.Type) throws -> ID {
        switch self {
        case .integer(let value):
            if let id = Int(exactly: value) as? ID { return id }
            if let integer = type as? any BinaryInteger.Type, let id = integer.init(exactly: value) as? ID {
                return id
            }
        case .text(let text):
            if let id = text as? ID { return id }
            if type == UUID.self {
                if let id = UUID(uuidString: text) as? ID { return id }
            } else if let integer = type as? any FixedWidthInteger.Type {
                // Past Int64: the decimal digits.
                if let id = integer.init(text, radix: 10) as? ID { return id }
            } else {
                // Any other ID is stored as its JSON.
                do {
                    return try JSONDecoder().decode(ID.self, from: Data(text.utf8))
                } catch {
                    throw NotAnID(key: self, type: String(describing: type), underlying: error)
                }
            }
        }
        throw NotAnID(key: self, type: String(describing: type))
    }

    /// A key that is no ID of the type asked for.
    struct NotAnID: Error, CustomStringConvertible {
        var key: SQLiteKey
        var type: String
        /// What decoding the key's JSON threw, for an ID stored as JSON.
        var underlying: (any Error)?

        var description: String {
            "the key \(SQLiteStoredRow.describe(key)) is no \(type)" + (underlying.map { ": \($0)" } ?? "")
        }
    }
}
