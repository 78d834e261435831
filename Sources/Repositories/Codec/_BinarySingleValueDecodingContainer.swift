/// The single value a `Decoder` is at: `Optional`, `RawRepresentable` enums and wrappers
/// decode through it.
struct _BinarySingleValueDecodingContainer: SingleValueDecodingContainer {
    private let decoder: _BinaryDecoder
    let codingPath: [any CodingKey]
    /// Where the value starts.
    private let position: Int
    /// The end of the value's region; no read goes past it.
    private let limit: Int

    init(decoder: _BinaryDecoder, codingPath: [any CodingKey], position: Int, limit: Int) {
        self.decoder = decoder
        self.codingPath = codingPath
        self.position = position
        self.limit = limit
    }

    /// Reads the value with `read`, adding the coding path to a failure.
    private func read<T>(_ read: (Int, Int, inout Int) throws -> T) throws -> T {
        do {
            var end = position
            return try read(position, limit, &end)
        } catch let failure as _BinaryReadFailure {
            throw failure.decodingError(codingPath)
        }
    }

    func decodeNil() -> Bool {
        // A damaged value is not nil; decoding it then throws with the details.
        (try? decoder.isNil(at: position, limit: limit)) ?? false
    }

    func decode(_ type: Bool.Type) throws -> Bool { try read(decoder.readBool) }
    func decode(_ type: String.Type) throws -> String { try read(decoder.readString) }
    func decode(_ type: Double.Type) throws -> Double { try read(decoder.readDouble) }
    func decode(_ type: Float.Type) throws -> Float { try read(decoder.readFloat) }
    func decode(_ type: Int.Type) throws -> Int { try read(decoder.readInt) }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer() }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer() }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer() }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer() }
    func decode(_ type: UInt.Type) throws -> UInt { try integer() }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer() }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer() }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer() }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer() }

    private func integer<I: FixedWidthInteger>() throws -> I {
        try read { try decoder.readInteger(I.self, at: $0, limit: $1, end: &$2) }
    }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try read { try decoder.decodeValue(T.self, at: $0, limit: $1, end: &$2, codingPath: codingPath) }
    }
}
