/// The `Encoder` of one value slot in an ``EntityCodec/binary`` encode call: a value nested
/// in a container, or the slot a `superEncoder()` reserved.
final class _BinaryEncoder: Encoder {
    /// Where the value this encoder writes goes.
    enum Slot {
        /// At the end of the bytes, inside `parent` (nil at the top level).
        case fresh(parent: _BinaryEncodingState.FrameReference?)
        /// In a `superEncoder()`'s reserved slot.
        case pending(_BinaryEncodingState.FrameReference)
    }

    let state: _BinaryEncodingState
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { state.userInfo }
    private let slot: Slot
    /// The container this encoder opened, for a second request (a subclass and its
    /// superclass both asking the same encoder for a keyed container).
    @exclusivity(unchecked) private var container: _BinaryEncodingState.FrameReference?
    /// Whether a single value was written.
    @exclusivity(unchecked) private var wroteValue = false

    init(state: _BinaryEncodingState, codingPath: [any CodingKey], slot: Slot) {
        self.state = state
        self.codingPath = codingPath
        self.slot = slot
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(
            _BinaryKeyedEncodingContainer<Key>(state: state, codingPath: codingPath, frame: open(.keyed)))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        _BinaryUnkeyedEncodingContainer(state: state, codingPath: codingPath, frame: open(.unkeyed))
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        _BinarySingleValueEncodingContainer(encoder: self)
    }

    /// Opens this encoder's container of `kind`, or returns the one it opened before.
    private func open(_ kind: _BinaryEncodingState.Kind) -> _BinaryEncodingState.FrameReference {
        do {
            if let container {
                guard state.isOpen(container), state.frames[container.index].kind == kind else {
                    throw EncodingError.invalidValue(
                        kind,
                        .init(
                            codingPath: codingPath,
                            debugDescription:
                                "A second container was requested of another kind, or after the first was finished"
                        ))
                }
                try state.closeFrames(downTo: container.index + 1)
                return container
            }
            try claimSlot()
            let frame = state.open(kind)
            container = frame
            return frame
        } catch {
            state.deferError(error)
            return .closed
        }
    }

    /// Makes this encoder's slot the place the next bytes go, once.
    ///
    /// - Throws: `EncodingError.invalidValue` when a value was written already, or when the
    ///   slot's parent was closed.
    func claimSlot() throws {
        guard !wroteValue, container == nil else {
            throw EncodingError.invalidValue(
                codingPath,
                .init(codingPath: codingPath, debugDescription: "A second value was encoded into one slot"))
        }
        switch slot {
        case .fresh(let parent?):
            guard state.isOpen(parent) else { throw _BinaryEncodingState.closedContainer(codingPath) }
            try state.closeFrames(downTo: parent.index + 1)
        case .fresh(nil):
            try state.closeFrames(downTo: 0)
        case .pending(let reference):
            try state.claim(reference, codingPath: codingPath)
        }
    }

    /// Claims the slot for a single value; the caller writes it next.
    func beginSingleValue() throws {
        try claimSlot()
        wroteValue = true
    }

    /// Encodes a value that is not a primitive into this encoder's own slot.
    func encodeNested<T: Encodable>(_ value: T) throws {
        try state.enterNested(value, codingPath: codingPath)
        defer { state.leaveNested() }
        try value.encode(to: self)
    }
}
