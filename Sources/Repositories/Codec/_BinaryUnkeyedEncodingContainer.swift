/// An unkeyed container being encoded: its elements appended in order.
struct _BinaryUnkeyedEncodingContainer: UnkeyedEncodingContainer {
    private let state: _BinaryEncodingState
    let codingPath: [any CodingKey]
    private let frame: _BinaryEncodingState.FrameReference
    private(set) var count = 0

    init(state: _BinaryEncodingState, codingPath: [any CodingKey], frame: _BinaryEncodingState.FrameReference)
    {
        self.state = state
        self.codingPath = codingPath
        self.frame = frame
    }

    /// Starts the next element: checks the container is still open and counts it.
    private mutating func begin() throws {
        try state.beginEntry(in: frame, codingPath: codingPath)
        count += 1
    }

    mutating func encodeNil() throws {
        try begin()
        state.writeNil()
    }

    mutating func encode(_ value: Bool) throws {
        try begin()
        state.write(value)
    }

    mutating func encode(_ value: String) throws {
        try begin()
        state.write(value)
    }

    mutating func encode(_ value: Double) throws {
        try begin()
        state.write(value)
    }

    mutating func encode(_ value: Float) throws {
        try begin()
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

    private mutating func signed(_ value: Int64) throws {
        try begin()
        state.writeSigned(value)
    }

    private mutating func unsigned(_ value: UInt64) throws {
        try begin()
        state.writeUnsigned(value)
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try begin()
        try state.encodeValue(
            value, parent: frame, codingPath: codingPath + [_BinaryCodingKey(intValue: count - 1)])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        let frame = openNested(.keyed)
        return KeyedEncodingContainer(
            _BinaryKeyedEncodingContainer<NestedKey>(state: state, codingPath: elementPath, frame: frame))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let frame = openNested(.unkeyed)
        return _BinaryUnkeyedEncodingContainer(state: state, codingPath: elementPath, frame: frame)
    }

    mutating func superEncoder() -> any Encoder {
        let frame = openNested(.pending)
        return _BinaryEncoder(state: state, codingPath: elementPath, slot: .pending(frame))
    }

    /// The coding path of the element last begun.
    private var elementPath: [any CodingKey] { codingPath + [_BinaryCodingKey(intValue: count - 1)] }

    /// Begins an element and opens a frame of `kind` for it; a failure is thrown when the
    /// encode call ends, since these calls cannot throw.
    private mutating func openNested(_ kind: _BinaryEncodingState.Kind) -> _BinaryEncodingState.FrameReference
    {
        do {
            try begin()
        } catch {
            state.deferError(error)
            return .closed
        }
        return state.open(kind)
    }
}
