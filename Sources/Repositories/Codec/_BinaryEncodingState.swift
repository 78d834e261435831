import Foundation

/// The bytes of one ``EntityCodec/binary`` encode call, and the containers still open in
/// them.
///
/// Everything is written into one growing buffer, in order. A container writes its header
/// when it opens and its length and count when it closes; it closes when its parent (or an
/// ancestor) writes again, or when encoding ends. A write to a container that was closed
/// this way (code that keeps a nested container and fills it after writing to its parent)
/// throws, rather than writing bytes in the wrong place. Nothing is shared between calls.
final class _BinaryEncodingState {
    /// What an open frame is.
    enum Kind: Equatable {
        case keyed
        case unkeyed
        /// The slot of a `superEncoder()` that has not written its value yet; closing it
        /// writes an empty keyed container, as `JSONEncoder` writes `{}`.
        case pending
    }

    /// An open container or pending slot.
    struct Frame {
        var id: Int
        var kind: Kind
        /// Where the container's tag is.
        var headerOffset: Int
        var count: UInt32
    }

    /// A container's handle on its frame; it stays valid while the frame is open.
    struct FrameReference {
        var index: Int
        var id: Int

        /// A handle on no frame: every write through it throws.
        static let closed = FrameReference(index: -1, id: -1)
    }

    // One thread uses a state, and no access to these overlaps another, so the dynamic
    // exclusivity checks (a large share of encoding's time) are left out.
    @exclusivity(unchecked) var bytes: [UInt8]
    @exclusivity(unchecked) private(set) var frames: [Frame] = []
    @exclusivity(unchecked) private var nextFrameID = 0
    /// How many `Encodable` values enclose the one being encoded.
    @exclusivity(unchecked) private var depth = 0
    /// The first error of a call that cannot throw (opening a container), thrown when the
    /// encode call ends.
    private(set) var deferredError: (any Error)?
    let userInfo: [CodingUserInfoKey: Any]

    init(bytes: [UInt8], userInfo: [CodingUserInfoKey: Any]) {
        self.bytes = bytes
        self.userInfo = userInfo
    }

    /// Encodes `value` as the document after the bytes already in `buffer`; on a throw,
    /// `buffer` is left as it was.
    static func encode<T: Encodable>(
        _ value: T, appendingTo buffer: inout [UInt8], userInfo: [CodingUserInfoKey: Any]
    ) throws {
        let start = buffer.count
        // The caller's buffer moves in and out, so appending to a journal copies nothing.
        let state = _BinaryEncodingState(bytes: [], userInfo: userInfo)
        swap(&state.bytes, &buffer)
        defer { swap(&state.bytes, &buffer) }
        do {
            state.bytes.append(BinaryFormat.version)
            try state.encodeValue(value, parent: nil, codingPath: [])
            try state.closeFrames(downTo: 0)
            if let error = state.deferredError { throw error }
        } catch {
            state.bytes.removeSubrange(start...)
            throw error
        }
    }

    /// Keeps the first error of an operation that cannot throw.
    func deferError(_ error: any Error) {
        if deferredError == nil { deferredError = error }
    }

    // MARK: Values

    /// Writes `value`: strings, numbers, Bools, `Date`, `Data`, `UUID` and `URL` directly,
    /// any other type through its `encode(to:)` with an encoder of its own.
    func encodeValue<T: Encodable>(
        _ value: T, parent: FrameReference?, codingPath: @autoclosure () -> [any CodingKey]
    ) throws {
        if writeDirect(value) { return }
        let codingPath = codingPath()
        try enterNested(value, codingPath: codingPath)
        defer { leaveNested() }
        let before = bytes.count
        let encoder = _BinaryEncoder(state: self, codingPath: codingPath, slot: .fresh(parent: parent))
        try value.encode(to: encoder)
        try closeFrames(downTo: parent.map { $0.index + 1 } ?? 0)
        if bytes.count == before { writeEmptyKeyedContainer() }
    }

    /// Whether values of `type` are written directly, without an encoder of their own.
    static func isDirect(_ type: Any.Type) -> Bool {
        type == String.self || type == Int.self || type == Double.self || type == Bool.self
            || type == Date.self || type == Data.self || type == UUID.self || type == URL.self
    }

    /// Writes `value` if its type is one written directly (see ``isDirect(_:)``); returns
    /// whether it did.
    func writeDirect<T>(_ value: T) -> Bool {
        if T.self == String.self {
            write(unsafeBitCast(value, to: String.self))
        } else if T.self == Int.self {
            writeSigned(Int64(unsafeBitCast(value, to: Int.self)))
        } else if T.self == Double.self {
            write(unsafeBitCast(value, to: Double.self))
        } else if T.self == Bool.self {
            write(unsafeBitCast(value, to: Bool.self))
        } else if T.self == Date.self {
            write(unsafeBitCast(value, to: Date.self))
        } else if T.self == Data.self {
            write(unsafeBitCast(value, to: Data.self))
        } else if T.self == UUID.self {
            write(unsafeBitCast(value, to: UUID.self))
        } else if T.self == URL.self {
            write(unsafeBitCast(value, to: URL.self).absoluteString)
        } else {
            return false
        }
        return true
    }

    /// Counts one more level of nesting, or throws past ``BinaryFormat/maximumDepth``.
    func enterNested(_ value: Any, codingPath: [any CodingKey]) throws {
        guard depth < BinaryFormat.maximumDepth else {
            throw EncodingError.invalidValue(
                value,
                .init(
                    codingPath: codingPath,
                    debugDescription:
                        "Values nest deeper than \(BinaryFormat.maximumDepth) levels (a cycle of references?)"
                ))
        }
        depth += 1
    }

    /// Ends a level counted by ``enterNested(_:codingPath:)``.
    func leaveNested() { depth -= 1 }

    // MARK: Frames

    /// Whether `frame` is still open.
    func isOpen(_ frame: FrameReference) -> Bool {
        frame.index >= 0 && frame.index < frames.count && frames[frame.index].id == frame.id
    }

    /// Opens a container (or a pending slot) at the end of the bytes.
    func open(_ kind: Kind) -> FrameReference {
        let reference = FrameReference(index: frames.count, id: nextFrameID)
        nextFrameID += 1
        frames.append(Frame(id: reference.id, kind: kind, headerOffset: bytes.count, count: 0))
        switch kind {
        case .keyed, .unkeyed:
            bytes.append((kind == .keyed ? BinaryFormat.Tag.keyed : .unkeyed).rawValue)
            bytes.append(contentsOf: repeatElement(0, count: BinaryFormat.containerHeaderSize))
        case .pending: break
        }
        return reference
    }

    /// Readies `frame` for one more entry: closes the containers opened inside it since,
    /// and counts the entry.
    ///
    /// - Throws: `EncodingError.invalidValue` when `frame` was closed already.
    func beginEntry(in frame: FrameReference, codingPath: [any CodingKey]) throws {
        guard isOpen(frame) else { throw Self.closedContainer(codingPath) }
        try closeFrames(downTo: frame.index + 1)
        guard frames[frame.index].count < UInt32.max else {
            throw EncodingError.invalidValue(
                frames[frame.index].count, .init(codingPath: codingPath, debugDescription: "Too many entries")
            )
        }
        frames[frame.index].count += 1
    }

    /// Claims a `superEncoder()`'s pending slot for its value: the slot must still be open,
    /// and stops being pending.
    func claim(_ pending: FrameReference, codingPath: [any CodingKey]) throws {
        guard isOpen(pending) else { throw Self.closedContainer(codingPath) }
        try closeFrames(downTo: pending.index + 1)
        frames.removeLast()
    }

    /// Closes frames until `count` are left: writes each container's length and count, and
    /// an empty keyed container in each unused pending slot.
    func closeFrames(downTo count: Int) throws {
        while frames.count > count {
            let frame = frames.removeLast()
            switch frame.kind {
            case .pending:
                writeEmptyKeyedContainer()
            case .keyed, .unkeyed:
                let body = bytes.count - frame.headerOffset - 5
                guard let length = UInt32(exactly: body) else {
                    throw EncodingError.invalidValue(
                        body, .init(codingPath: [], debugDescription: "A container is larger than 4 GiB"))
                }
                bytes.withUnsafeMutableBytes { raw in
                    raw.storeBytes(
                        of: length.littleEndian, toByteOffset: frame.headerOffset + 1, as: UInt32.self)
                    raw.storeBytes(
                        of: frame.count.littleEndian, toByteOffset: frame.headerOffset + 5, as: UInt32.self)
                }
            }
        }
    }

    static func closedContainer(_ codingPath: [any CodingKey]) -> EncodingError {
        .invalidValue(
            codingPath,
            .init(
                codingPath: codingPath,
                debugDescription:
                    "A container was written to after a value was written to its parent; the binary codec "
                    + "writes in order, so fill a nested container before writing to its parent again"))
    }

    // MARK: Primitives

    func writeNil() { bytes.append(BinaryFormat.Tag.null.rawValue) }

    func write(_ value: Bool) {
        bytes.append((value ? BinaryFormat.Tag.trueValue : .falseValue).rawValue)
    }

    func writeSigned(_ value: Int64) {
        bytes.append(BinaryFormat.Tag.signed.rawValue)
        writeVarint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    func writeUnsigned(_ value: UInt64) {
        bytes.append(BinaryFormat.Tag.unsigned.rawValue)
        writeVarint(value)
    }

    func write(_ value: Float) {
        bytes.append(BinaryFormat.Tag.float.rawValue)
        withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
    }

    func write(_ value: Double) {
        bytes.append(BinaryFormat.Tag.double.rawValue)
        withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
    }

    func write(_ value: String) {
        bytes.append(BinaryFormat.Tag.string.rawValue)
        writeKey(value)
    }

    /// A key or a string's body: its UTF-8 length, then the UTF-8.
    func writeKey(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            writeVarint(UInt64(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    func write(_ value: Date) {
        bytes.append(BinaryFormat.Tag.date.rawValue)
        withUnsafeBytes(of: value.timeIntervalSinceReferenceDate.bitPattern.littleEndian) {
            bytes.append(contentsOf: $0)
        }
    }

    func write(_ value: Data) {
        bytes.append(BinaryFormat.Tag.data.rawValue)
        writeVarint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    func write(_ value: UUID) {
        bytes.append(BinaryFormat.Tag.uuid.rawValue)
        withUnsafeBytes(of: value.uuid) { bytes.append(contentsOf: $0) }
    }

    func writeEmptyKeyedContainer() {
        bytes.append(BinaryFormat.Tag.keyed.rawValue)
        bytes.append(contentsOf: [4, 0, 0, 0, 0, 0, 0, 0])
    }

    private func writeVarint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }
}
