/// An unkeyed container being decoded: its elements in order, each read once.
struct _BinaryUnkeyedDecodingContainer: UnkeyedDecodingContainer {
    private let decoder: _BinaryDecoder
    let codingPath: [any CodingKey]
    /// How many elements the container holds, checked against its length when opened.
    private let elementCount: Int
    /// The end of the container; no read goes past it.
    private let end: Int
    /// Where the next element starts.
    private var position: Int
    private(set) var currentIndex = 0

    init(decoder: _BinaryDecoder, codingPath: [any CodingKey], at position: Int, limit: Int) throws {
        self.decoder = decoder
        self.codingPath = codingPath
        do {
            (self.position, end, elementCount) = try decoder.openContainer(
                .unkeyed, expecting: [Any].self, at: position, limit: limit)
        } catch let failure as _BinaryReadFailure {
            throw failure.decodingError(codingPath)
        }
    }

    var count: Int? { elementCount }
    var isAtEnd: Bool { currentIndex >= elementCount }

    private var indexPath: [any CodingKey] { codingPath + [_BinaryCodingKey(intValue: currentIndex)] }

    /// Reads the next element with `read` and moves past it.
    private mutating func next<T>(_ type: Any.Type, _ read: (Int, inout Int) throws -> T) throws -> T {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                type, .init(codingPath: indexPath, debugDescription: "Unkeyed container is at end."))
        }
        do {
            var end = position
            let value = try read(position, &end)
            position = end
            currentIndex += 1
            return value
        } catch let failure as _BinaryReadFailure {
            throw failure.decodingError(indexPath)
        }
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                Any?.self, .init(codingPath: indexPath, debugDescription: "Unkeyed container is at end."))
        }
        do {
            guard try decoder.isNil(at: position, limit: end) else { return false }
        } catch let failure as _BinaryReadFailure {
            throw failure.decodingError(indexPath)
        }
        position += 1
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool {
        try next(type) { [decoder, end] in try decoder.readBool(at: $0, limit: end, end: &$1) }
    }

    mutating func decode(_ type: String.Type) throws -> String {
        try next(type) { [decoder, end] in try decoder.readString(at: $0, limit: end, end: &$1) }
    }

    mutating func decode(_ type: Double.Type) throws -> Double {
        try next(type) { [decoder, end] in try decoder.readDouble(at: $0, limit: end, end: &$1) }
    }

    mutating func decode(_ type: Float.Type) throws -> Float {
        try next(type) { [decoder, end] in try decoder.readFloat(at: $0, limit: end, end: &$1) }
    }

    mutating func decode(_ type: Int.Type) throws -> Int {
        try next(type) { [decoder, end] in try decoder.readInt(at: $0, limit: end, end: &$1) }
    }

    mutating func decode(_ type: Int8.Type) throws -> Int8 { try integer() }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try integer() }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try integer() }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try integer() }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try integer() }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try integer() }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try integer() }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try integer() }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try integer() }

    private mutating func integer<I: FixedWidthInteger>() throws -> I {
        try next(I.self) { [decoder, end] in try decoder.readInteger(I.self, at: $0, limit: end, end: &$1) }
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try next(type) { [decoder, end, codingPath, currentIndex] in
            try decoder.decodeValue(
                T.self, at: $0, limit: end, end: &$1,
                codingPath: codingPath + [_BinaryCodingKey(intValue: currentIndex)])
        }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        let path = indexPath
        return try next(type) { [decoder, end] position, valueEnd in
            let container = try _BinaryKeyedDecodingContainer<NestedKey>(
                decoder: decoder, codingPath: path, at: position, limit: end)
            valueEnd = try decoder.reader.skipValue(at: position, limit: end)
            return KeyedDecodingContainer(container)
        }
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let path = indexPath
        return try next([Any].self) { [decoder, end] position, valueEnd in
            let container = try _BinaryUnkeyedDecodingContainer(
                decoder: decoder, codingPath: path, at: position, limit: end)
            valueEnd = try decoder.reader.skipValue(at: position, limit: end)
            return container
        }
    }

    mutating func superDecoder() throws -> any Decoder {
        let path = indexPath
        return try next((any Decoder).self) { [decoder, end] position, valueEnd in
            let nested = try decoder.superDecoder(at: position, limit: end, codingPath: path)
            valueEnd = nested.limit
            return nested
        }
    }
}
