import Foundation

/// The `Decoder` of one ``EntityCodec/binary`` decode call.
///
/// One instance serves a whole call: decoding a nested value moves ``position``,
/// ``limit`` and ``codingPath`` to it and restores them after, so a nested value costs no
/// decoder of its own. Nothing is shared between calls, so any number of threads decode at
/// once, each with its own decoder.
final class _BinaryDecoder: Decoder {
    let reader: _BinaryReader
    let userInfo: [CodingUserInfoKey: Any]
    // One thread uses a decoder, and no access to these overlaps another, so the dynamic
    // exclusivity checks are left out.
    @exclusivity(unchecked) var codingPath: [any CodingKey]
    /// Where the value being decoded starts.
    @exclusivity(unchecked) var position: Int
    /// The end of the value being decoded; no read goes past it.
    @exclusivity(unchecked) var limit: Int
    /// How many values enclose the one being decoded.
    @exclusivity(unchecked) var depth: Int

    init(
        reader: _BinaryReader, userInfo: [CodingUserInfoKey: Any], codingPath: [any CodingKey],
        position: Int, limit: Int, depth: Int
    ) {
        self.reader = reader
        self.userInfo = userInfo
        self.codingPath = codingPath
        self.position = position
        self.limit = limit
        self.depth = depth
    }

    /// Decodes the document in `bytes`: the version byte, then one value filling the rest.
    static func decode<T: Decodable>(
        _ type: T.Type, from bytes: UnsafeRawBufferPointer, userInfo: [CodingUserInfoKey: Any]
    ) throws -> T {
        let reader = _BinaryReader(bytes: bytes)
        do {
            guard let version = bytes.first else {
                throw _BinaryReadFailure.malformed(offset: 0, reason: "the data is empty")
            }
            guard version == BinaryFormat.version else {
                throw _BinaryReadFailure.malformed(
                    offset: 0,
                    reason:
                        "written by version \(version) of the binary format; this build reads version \(BinaryFormat.version)"
                )
            }
            let end = try reader.skipValue(at: 1, limit: bytes.count)
            guard end == bytes.count else {
                throw _BinaryReadFailure.malformed(
                    offset: end, reason: "\(bytes.count - end) bytes follow the value")
            }
            let decoder = _BinaryDecoder(
                reader: reader, userInfo: userInfo, codingPath: [], position: 1, limit: end, depth: 0)
            var valueEnd = end
            return try decoder.decodeValue(T.self, at: 1, limit: end, end: &valueEnd, codingPath: [])
        } catch let failure as _BinaryReadFailure {
            throw failure.decodingError([])
        }
    }

    // MARK: Decoder

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(
            try _BinaryKeyedDecodingContainer<Key>(
                decoder: self, codingPath: codingPath, at: position, limit: limit))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try _BinaryUnkeyedDecodingContainer(decoder: self, codingPath: codingPath, at: position, limit: limit)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        _BinarySingleValueDecodingContainer(
            decoder: self, codingPath: codingPath, position: position, limit: limit)
    }

    // MARK: Values

    /// Decodes a `T` from the value at `position`, and sets `end` to the value's end.
    ///
    /// Strings, numbers, Bools, and `Date`, `Data`, `UUID` and `URL` written in their
    /// compact form are read directly; any other type runs its `init(from:)` on this
    /// decoder, moved to the value. (No result is a generic tuple or optional: in generic
    /// code those cost a metadata lookup per call.)
    ///
    /// - Throws: ``_BinaryReadFailure`` for the value's own bytes; whatever a nested
    ///   `init(from:)` throws (already a `DecodingError` with its path).
    func decodeValue<T: Decodable>(
        _ type: T.Type, at position: Int, limit: Int, end: inout Int,
        codingPath: @autoclosure () -> [any CodingKey]
    ) throws -> T {
        if T.self == String.self {
            return unsafeBitCast(try readString(at: position, limit: limit, end: &end), to: T.self)
        }
        if T.self == Int.self {
            return unsafeBitCast(try readInt(at: position, limit: limit, end: &end), to: T.self)
        }
        if T.self == Double.self {
            return unsafeBitCast(try readDouble(at: position, limit: limit, end: &end), to: T.self)
        }
        if T.self == Bool.self {
            return unsafeBitCast(try readBool(at: position, limit: limit, end: &end), to: T.self)
        }
        if T.self == Date.self, try reader.tag(at: position, limit: limit) == .date {
            let bits = try reader.uint64(at: position + 1, limit: limit)
            end = position + 9
            return unsafeBitCast(Date(timeIntervalSinceReferenceDate: Double(bitPattern: bits)), to: T.self)
        }
        if T.self == Data.self, try reader.tag(at: position, limit: limit) == .data {
            var cursor = position + 1
            let count = try reader.length(at: &cursor, limit: limit)
            end = cursor + count
            return unsafeBitCast(
                Data(UnsafeRawBufferPointer(rebasing: reader.bytes[cursor..<end])), to: T.self)
        }
        if T.self == UUID.self, try reader.tag(at: position, limit: limit) == .uuid {
            guard limit - position > 16 else {
                throw _BinaryReadFailure.malformed(offset: position, reason: "a UUID runs past the end")
            }
            end = position + 17
            let uuid = UUID(uuid: reader.bytes.loadUnaligned(fromByteOffset: position + 1, as: uuid_t.self))
            return unsafeBitCast(uuid, to: T.self)
        }
        if T.self == URL.self {
            let text = try readString(at: position, limit: limit, end: &end)
            guard let url = URL(string: text) else {
                throw _BinaryReadFailure.malformed(offset: position, reason: "\"\(text)\" is not a valid URL")
            }
            return unsafeBitCast(url, to: T.self)
        }
        return try decodeNested(T.self, at: position, limit: limit, end: &end, codingPath: codingPath())
    }

    /// Runs `T`'s `init(from:)` with this decoder moved to the value at `position`.
    private func decodeNested<T: Decodable>(
        _ type: T.Type, at position: Int, limit: Int, end: inout Int, codingPath: [any CodingKey]
    ) throws -> T {
        let valueEnd = try reader.skipValue(at: position, limit: limit)
        guard depth < BinaryFormat.maximumDepth else {
            throw _BinaryReadFailure.malformed(
                offset: position, reason: "values nest deeper than \(BinaryFormat.maximumDepth) levels")
        }
        let savedPosition = self.position
        let savedLimit = self.limit
        let savedPath = self.codingPath
        self.position = position
        self.limit = valueEnd
        self.codingPath = codingPath
        depth += 1
        defer {
            self.position = savedPosition
            self.limit = savedLimit
            self.codingPath = savedPath
            depth -= 1
        }
        end = valueEnd
        return try T(from: self)
    }

    /// A decoder of its own for the value at `position`, for `superDecoder()`.
    func superDecoder(at position: Int, limit: Int, codingPath: [any CodingKey]) throws -> _BinaryDecoder {
        let end = try reader.skipValue(at: position, limit: limit)
        guard depth < BinaryFormat.maximumDepth else {
            throw _BinaryReadFailure.malformed(
                offset: position, reason: "values nest deeper than \(BinaryFormat.maximumDepth) levels")
        }
        return _BinaryDecoder(
            reader: reader, userInfo: userInfo, codingPath: codingPath, position: position, limit: end,
            depth: depth + 1)
    }

    /// The body of the container at `position`: where its entries start and end, and how
    /// many it claims (checked against its length, so no caller trusts a huge count).
    func openContainer(
        _ tag: BinaryFormat.Tag, expecting type: Any.Type, at position: Int, limit: Int
    ) throws -> (start: Int, end: Int, count: Int) {
        let found = try reader.tag(at: position, limit: limit)
        guard found == tag else {
            if found == .null { throw _BinaryReadFailure.null(expected: type, offset: position) }
            throw _BinaryReadFailure.mismatch(expected: type, found: found.name, offset: position)
        }
        let end = try reader.skipValue(at: position, limit: limit)
        let start = position + 1 + BinaryFormat.containerHeaderSize
        guard start <= end else {
            throw _BinaryReadFailure.malformed(
                offset: position, reason: "a container is shorter than its header")
        }
        let count = try reader.uint32(at: position + 5, limit: end)
        // A keyed entry takes at least 2 bytes (a key length and a tag), an element 1.
        let smallest = tag == .keyed ? 2 : 1
        guard UInt64(count) * UInt64(smallest) <= UInt64(end - start) else {
            throw _BinaryReadFailure.malformed(
                offset: position + 5, reason: "a count of \(count) exceeds what \(end - start) bytes can hold"
            )
        }
        return (start, end, Int(count))
    }

    // MARK: Primitives

    /// Whether the value at `position` is nil.
    func isNil(at position: Int, limit: Int) throws -> Bool {
        try reader.tag(at: position, limit: limit) == .null
    }

    func readBool(at position: Int, limit: Int, end: inout Int) throws -> Bool {
        switch try reader.tag(at: position, limit: limit) {
        case .trueValue:
            end = position + 1
            return true
        case .falseValue:
            end = position + 1
            return false
        case let other: throw mismatch(Bool.self, found: other, at: position)
        }
    }

    /// An `Int`, by a path of its own: generic code calling ``readInteger(_:at:limit:end:)``
    /// is not specialized, and `Int` is the common case.
    func readInt(at position: Int, limit: Int, end: inout Int) throws -> Int {
        var cursor = position + 1
        guard try reader.tag(at: position, limit: limit) == .signed else {
            return try readInteger(Int.self, at: position, limit: limit, end: &end)
        }
        let raw = try reader.varint(at: &cursor, limit: limit)
        end = cursor
        return Int(Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1))
    }

    func readInteger<I: FixedWidthInteger>(
        _ type: I.Type, at position: Int, limit: Int, end: inout Int
    ) throws -> I {
        var cursor = position + 1
        switch try reader.tag(at: position, limit: limit) {
        case .signed:
            let raw = try reader.varint(at: &cursor, limit: limit)
            let value = Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1)
            guard let exact = I(exactly: value) else {
                throw _BinaryReadFailure.malformed(
                    offset: position, reason: "the number \(value) does not fit in \(I.self)")
            }
            end = cursor
            return exact
        case .unsigned:
            let raw = try reader.varint(at: &cursor, limit: limit)
            guard let exact = I(exactly: raw) else {
                throw _BinaryReadFailure.malformed(
                    offset: position, reason: "the number \(raw) does not fit in \(I.self)")
            }
            end = cursor
            return exact
        case let other: throw mismatch(I.self, found: other, at: position)
        }
    }

    func readFloat(at position: Int, limit: Int, end: inout Int) throws -> Float {
        switch try reader.tag(at: position, limit: limit) {
        case .float:
            let bits = try reader.uint32(at: position + 1, limit: limit)
            end = position + 5
            return Float(bitPattern: bits)
        case let other: throw mismatch(Float.self, found: other, at: position)
        }
    }

    func readDouble(at position: Int, limit: Int, end: inout Int) throws -> Double {
        switch try reader.tag(at: position, limit: limit) {
        case .double, .date:
            let bits = try reader.uint64(at: position + 1, limit: limit)
            end = position + 9
            return Double(bitPattern: bits)
        case .float:
            let bits = try reader.uint32(at: position + 1, limit: limit)
            end = position + 5
            return Double(Float(bitPattern: bits))
        case let other: throw mismatch(Double.self, found: other, at: position)
        }
    }

    func readString(at position: Int, limit: Int, end: inout Int) throws -> String {
        switch try reader.tag(at: position, limit: limit) {
        case .string:
            var cursor = position + 1
            let count = try reader.length(at: &cursor, limit: limit)
            let text = try reader.string(at: cursor, count: count)
            end = cursor + count
            return text
        case let other: throw mismatch(String.self, found: other, at: position)
        }
    }

    private func mismatch(_ type: Any.Type, found: BinaryFormat.Tag, at position: Int) -> _BinaryReadFailure {
        found == .null
            ? .null(expected: type, offset: position)
            : .mismatch(expected: type, found: found.name, offset: position)
    }
}
