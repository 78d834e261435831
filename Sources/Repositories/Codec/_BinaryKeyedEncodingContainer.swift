/// A keyed container being encoded: each entry is its key, then its value, appended in the
/// order they are encoded.
struct _BinaryKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    private let state: _BinaryEncodingState
    let codingPath: [any CodingKey]
    private let frame: _BinaryEncodingState.FrameReference

    init(state: _BinaryEncodingState, codingPath: [any CodingKey], frame: _BinaryEncodingState.FrameReference)
    {
        self.state = state
        self.codingPath = codingPath
        self.frame = frame
    }

    /// Starts the entry of `key`: checks the container is still open, writes the key.
    private func begin(_ key: Key) throws {
        try state.beginEntry(in: frame, codingPath: codingPath)
        state.writeKey(key.stringValue)
    }

    mutating func encodeNil(forKey key: Key) throws {
        try begin(key)
        state.writeNil()
    }

    mutating func encode(_ value: Bool, forKey key: Key) throws {
        try begin(key)
        state.write(value)
    }

    mutating func encode(_ value: String, forKey key: Key) throws {
        try begin(key)
        state.write(value)
    }

    mutating func encode(_ value: Double, forKey key: Key) throws {
        try begin(key)
        state.write(value)
    }

    mutating func encode(_ value: Float, forKey key: Key) throws {
        try begin(key)
        state.write(value)
    }

    mutating func encode(_ value: Int, forKey key: Key) throws { try signed(Int64(value), key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try signed(Int64(value), key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try signed(Int64(value), key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try signed(Int64(value), key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try signed(value, key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try unsigned(UInt64(value), key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try unsigned(UInt64(value), key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try unsigned(UInt64(value), key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try unsigned(UInt64(value), key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try unsigned(value, key) }

    private func signed(_ value: Int64, _ key: Key) throws {
        try begin(key)
        state.writeSigned(value)
    }

    private func unsigned(_ value: UInt64, _ key: Key) throws {
        try begin(key)
        state.writeUnsigned(value)
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try begin(key)
        try state.encodeValue(value, parent: frame, codingPath: codingPath + [key])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(
            _BinaryKeyedEncodingContainer<NestedKey>(
                state: state, codingPath: codingPath + [key], frame: openNested(.keyed, key)))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        _BinaryUnkeyedEncodingContainer(
            state: state, codingPath: codingPath + [key], frame: openNested(.unkeyed, key))
    }

    mutating func superEncoder() -> any Encoder {
        superEncoder(named: _BinaryCodingKey.super)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        superEncoder(named: key)
    }

    /// An encoder for the value of a key named `key` (`super` need not be a `Key`).
    private func superEncoder(named key: some CodingKey) -> any Encoder {
        _BinaryEncoder(
            state: state, codingPath: codingPath + [key], slot: .pending(openNested(.pending, key)))
    }

    /// Writes the key and opens a frame of `kind` for its value; a failure is thrown when
    /// the encode call ends, since these calls cannot throw.
    private func openNested(
        _ kind: _BinaryEncodingState.Kind, _ key: some CodingKey
    ) -> _BinaryEncodingState.FrameReference {
        do {
            try state.beginEntry(in: frame, codingPath: codingPath)
        } catch {
            state.deferError(error)
            return .closed
        }
        state.writeKey(key.stringValue)
        return state.open(kind)
    }
}
