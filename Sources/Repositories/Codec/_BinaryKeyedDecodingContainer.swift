/// A keyed container being decoded: finds the entry for a key by comparing it with the
/// entry at its cursor, the one after the last it decoded, and scans only when that fails.
///
/// A class, because `KeyedDecodingContainerProtocol`'s decoding methods are not mutating
/// and the cursor moves.
final class _BinaryKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    private let decoder: _BinaryDecoder
    let codingPath: [any CodingKey]
    /// Where the first entry starts.
    private let start: Int
    /// The end of the container; no read goes past it.
    private let end: Int
    /// Where the entry expected next starts: the one after the last decoded.
    @exclusivity(unchecked) private var cursor: Int

    init(decoder: _BinaryDecoder, codingPath: [any CodingKey], at position: Int, limit: Int) throws {
        self.decoder = decoder
        self.codingPath = codingPath
        do {
            (start, end, _) = try decoder.openContainer(
                .keyed, expecting: [String: Any].self, at: position, limit: limit)
        } catch let failure as _BinaryReadFailure {
            throw failure.decodingError(codingPath)
        }
        cursor = start
    }

    private var reader: _BinaryReader { decoder.reader }

    // MARK: Finding an entry

    /// Where the value of `key` starts, or nil when the container has no such key.
    private func valuePosition(_ key: Key) throws -> Int? {
        try valuePosition(stringValue: key.stringValue)
    }

    /// Where the value of the key named `name` starts, or nil when there is none.
    private func valuePosition(stringValue name: String) throws -> Int? {
        var name = name
        return try name.withUTF8 { name in
            if cursor < end {
                var position = cursor
                let length = try reader.length(at: &position, limit: end)
                if reader.bytes(at: position, count: length, equal: name) { return position + length }
            }
            var position = start
            while position < end {
                let length = try reader.length(at: &position, limit: end)
                let keyStart = position
                position += length
                if reader.bytes(at: keyStart, count: length, equal: name) { return position }
                position = try reader.skipValue(at: position, limit: end)
            }
            return nil
        }
    }

    private func keyNotFound(_ key: Key) -> DecodingError {
        .keyNotFound(
            key,
            .init(codingPath: codingPath, debugDescription: "No value associated with key \(key.stringValue)")
        )
    }

    /// Finds `key`, reads its value with `read`, and moves the cursor past it.
    private func decode<T>(_ key: Key, _ read: (Int, inout Int) throws -> T) throws -> T {
        do {
            guard let position = try valuePosition(key) else { throw keyNotFound(key) }
            var end = position
            let value = try read(position, &end)
            cursor = end
            return value
        } catch let failure as _BinaryReadFailure {
            throw failure.decodingError(codingPath + [key])
        }
    }

    /// As ``decode(_:_:)``, but nil for an absent key or a nil value.
    private func decodeIfPresent<T>(_ key: Key, _ read: (Int, inout Int) throws -> T) throws -> T? {
        do {
            guard let position = try valuePosition(key) else { return nil }
            if try decoder.isNil(at: position, limit: end) {
                cursor = position + 1
                return nil
            }
            var end = position
            let value = try read(position, &end)
            cursor = end
            return value
        } catch let failure as _BinaryReadFailure {
            throw failure.decodingError(codingPath + [key])
        }
    }

    // MARK: KeyedDecodingContainerProtocol

    var allKeys: [Key] {
        var keys: [Key] = []
        var position = start
        // A damaged entry ends the list; decoding it throws with the details.
        while position < end, let length = try? reader.length(at: &position, limit: end) {
            let name = String(decoding: reader.bytes[position..<position + length], as: UTF8.self)
            if let key = Key(stringValue: name) { keys.append(key) }
            guard let next = try? reader.skipValue(at: position + length, limit: end) else { break }
            position = next
        }
        return keys
    }

    func contains(_ key: Key) -> Bool {
        (try? valuePosition(key)) != nil
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        do {
            guard let position = try valuePosition(key) else { throw keyNotFound(key) }
            guard try decoder.isNil(at: position, limit: end) else { return false }
            cursor = position + 1
            return true
        } catch let failure as _BinaryReadFailure {
            throw failure.decodingError(codingPath + [key])
        }
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        try decode(key) { try decoder.readBool(at: $0, limit: end, end: &$1) }
    }

    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try decode(key) { try decoder.readString(at: $0, limit: end, end: &$1) }
    }

    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try decode(key) { try decoder.readDouble(at: $0, limit: end, end: &$1) }
    }

    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        try decode(key) { try decoder.readFloat(at: $0, limit: end, end: &$1) }
    }

    func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
        try decode(key) { try decoder.readInt(at: $0, limit: end, end: &$1) }
    }

    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(key) }

    private func integer<I: FixedWidthInteger>(_ key: Key) throws -> I {
        try decode(key) { try decoder.readInteger(I.self, at: $0, limit: end, end: &$1) }
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decode(key) {
            try decoder.decodeValue(T.self, at: $0, limit: end, end: &$1, codingPath: codingPath + [key])
        }
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        try decodeIfPresent(key) { try decoder.readBool(at: $0, limit: end, end: &$1) }
    }

    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        try decodeIfPresent(key) { try decoder.readString(at: $0, limit: end, end: &$1) }
    }

    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        try decodeIfPresent(key) { try decoder.readDouble(at: $0, limit: end, end: &$1) }
    }

    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
        try decodeIfPresent(key) { try decoder.readFloat(at: $0, limit: end, end: &$1) }
    }

    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        try decodeIfPresent(key) { try decoder.readInt(at: $0, limit: end, end: &$1) }
    }

    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try optionalInteger(key) }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try optionalInteger(key) }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try optionalInteger(key) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try optionalInteger(key) }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try optionalInteger(key) }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try optionalInteger(key) }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try optionalInteger(key) }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try optionalInteger(key) }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try optionalInteger(key) }

    private func optionalInteger<I: FixedWidthInteger>(_ key: Key) throws -> I? {
        try decodeIfPresent(key) { try decoder.readInteger(I.self, at: $0, limit: end, end: &$1) }
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try decodeIfPresent(key) {
            try decoder.decodeValue(T.self, at: $0, limit: end, end: &$1, codingPath: codingPath + [key])
        }
    }

    // MARK: Nested containers

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try decode(key) { position, valueEnd in
            let container = try _BinaryKeyedDecodingContainer<NestedKey>(
                decoder: decoder, codingPath: codingPath + [key], at: position, limit: end)
            valueEnd = try reader.skipValue(at: position, limit: end)
            return KeyedDecodingContainer(container)
        }
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decode(key) { position, valueEnd in
            let container = try _BinaryUnkeyedDecodingContainer(
                decoder: decoder, codingPath: codingPath + [key], at: position, limit: end)
            valueEnd = try reader.skipValue(at: position, limit: end)
            return container
        }
    }

    func superDecoder() throws -> any Decoder {
        try superDecoder(named: _BinaryCodingKey.super)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        try superDecoder(named: key)
    }

    /// A decoder for the value under `key`, found by its name (`super` need not be a `Key`).
    private func superDecoder(named key: some CodingKey) throws -> any Decoder {
        do {
            guard let position = try valuePosition(stringValue: key.stringValue) else {
                throw DecodingError.keyNotFound(
                    key,
                    .init(
                        codingPath: codingPath,
                        debugDescription: "No value associated with key \(key.stringValue)"))
            }
            let nested = try decoder.superDecoder(at: position, limit: end, codingPath: codingPath + [key])
            cursor = nested.limit
            return nested
        } catch let failure as _BinaryReadFailure {
            throw failure.decodingError(codingPath + [key])
        }
    }
}
