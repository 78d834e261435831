/// The single value of an encoder's slot: `Optional`, `RawRepresentable` enums and
/// wrappers encode through it.
struct _BinarySingleValueEncodingContainer: SingleValueEncodingContainer {
    private let encoder: _BinaryEncoder
    private var state: _BinaryEncodingState { encoder.state }
    var codingPath: [any CodingKey] { encoder.codingPath }

    init(encoder: _BinaryEncoder) {
        self.encoder = encoder
    }

    mutating func encodeNil() throws {
        try encoder.beginSingleValue()
        state.writeNil()
    }

    mutating func encode(_ value: Bool) throws {
        try encoder.beginSingleValue()
        state.write(value)
    }

    mutating func encode(_ value: String) throws {
        try encoder.beginSingleValue()
        state.write(value)
    }

    mutating func encode(_ value: Double) throws {
        try encoder.beginSingleValue()
        state.write(value)
    }

    mutating func encode(_ value: Float) throws {
        try encoder.beginSingleValue()
        state.write(value)
    }

    mutating func encode(_ value: Int) throws { try signed(Int64(value)) }
    mutating func encode(_ value: Int8) throws { try signed(Int64(value)) }
    mutating func encode(_ value: Int16) throws { try signed(Int64(value)) }
    mutating func encode(_ value: Int32) throws { try signed(Int64(value)) }
    mutating func encode(_ value: Int64) throws { try signed(value) }
    mutating func encode(_ value: UInt) throws { try unsigned(UInt64(value)) }
    mutating func encode(_ value: UInt8) throws { try unsigned(UInt64(value)) }
    mutating func encode(_ value: UInt16) throws { try unsigned(UInt64(value)) }
    mutating func encode(_ value: UInt32) throws { try unsigned(UInt64(value)) }
    mutating func encode(_ value: UInt64) throws { try unsigned(value) }

    private func signed(_ value: Int64) throws {
        try encoder.beginSingleValue()
        state.writeSigned(value)
    }

    private func unsigned(_ value: UInt64) throws {
        try encoder.beginSingleValue()
        state.writeUnsigned(value)
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        guard _BinaryEncodingState.isDirect(T.self) else { return try encoder.encodeNested(value) }
        try encoder.beginSingleValue()
        _ = state.writeDirect(value)
    }
}
