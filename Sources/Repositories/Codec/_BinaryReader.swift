import Foundation

/// Bounds-checked reads of the binary format's pieces from a buffer that outlives the read.
///
/// Every function takes the position to read at and the `limit` it may not read past (the
/// end of the enclosing container, never beyond the buffer), and throws
/// ``_BinaryReadFailure`` instead of reading out of bounds. Callers keep `limit` at most
/// `bytes.count`.
struct _BinaryReader {
    let bytes: UnsafeRawBufferPointer

    /// The tag byte of the value at `position`.
    func tag(at position: Int, limit: Int) throws -> BinaryFormat.Tag {
        guard position < limit else {
            throw _BinaryReadFailure.malformed(offset: position, reason: "a value is missing")
        }
        guard let tag = BinaryFormat.Tag(rawValue: bytes[position]) else {
            throw _BinaryReadFailure.malformed(offset: position, reason: "unknown tag \(bytes[position])")
        }
        return tag
    }

    /// Reads a varint at `position`, moving it past the varint.
    func varint(at position: inout Int, limit: Int) throws -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while position < limit {
            let byte = bytes[position]
            position += 1
            if shift == 63, byte > 1 {
                throw _BinaryReadFailure.malformed(offset: position - 1, reason: "a varint overflows 64 bits")
            }
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return result }
            shift += 7
            if shift > 63 {
                throw _BinaryReadFailure.malformed(
                    offset: position, reason: "a varint is longer than 10 bytes")
            }
        }
        throw _BinaryReadFailure.malformed(offset: position, reason: "a varint runs past the end")
    }

    /// Reads a varint byte count at `position` and checks that many bytes follow before
    /// `limit`; moves `position` past the varint.
    func length(at position: inout Int, limit: Int) throws -> Int {
        let start = position
        let length = try varint(at: &position, limit: limit)
        guard length <= UInt64(limit - position) else {
            throw _BinaryReadFailure.malformed(
                offset: start, reason: "a length of \(length) bytes exceeds the \(limit - position) left")
        }
        return Int(length)
    }

    /// The little-endian `UInt32` at `position`.
    func uint32(at position: Int, limit: Int) throws -> UInt32 {
        guard limit - position >= 4 else {
            throw _BinaryReadFailure.malformed(offset: position, reason: "a 4-byte number runs past the end")
        }
        return UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt32.self))
    }

    /// The little-endian `UInt64` at `position`.
    func uint64(at position: Int, limit: Int) throws -> UInt64 {
        guard limit - position >= 8 else {
            throw _BinaryReadFailure.malformed(offset: position, reason: "an 8-byte number runs past the end")
        }
        return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self))
    }

    /// Whether the `count` bytes at `position` equal `other`'s; the caller checked the range.
    func bytes(at position: Int, count: Int, equal other: UnsafeBufferPointer<UInt8>) -> Bool {
        guard count == other.count else { return false }
        guard count > 0, let base = bytes.baseAddress, let otherBase = other.baseAddress else { return true }
        return memcmp(base + position, otherBase, count) == 0
    }

    /// The UTF-8 text of the `count` bytes at `position`; the caller checked the range.
    ///
    /// `String(decoding:as:)` is the standard library's fast path (`String(validating:as:)`
    /// runs generic code with a metadata lookup per call); it repairs invalid UTF-8, so the
    /// result's bytes are compared with the input's, and a difference means invalid UTF-8.
    func string(at position: Int, count: Int) throws -> String {
        let slice = UnsafeRawBufferPointer(rebasing: bytes[position..<position + count])
        var text = String(decoding: slice.bindMemory(to: UInt8.self), as: UTF8.self)
        let unchanged = text.withUTF8 { self.bytes(at: position, count: count, equal: $0) }
        guard unchanged else {
            throw _BinaryReadFailure.malformed(offset: position, reason: "a string is not valid UTF-8")
        }
        return text
    }

    /// The end of the value at `position`, without decoding it.
    ///
    /// - Complexity: O(1), but for a varint's bytes.
    func skipValue(at position: Int, limit: Int) throws -> Int {
        var cursor = position + 1
        let end: Int
        switch try tag(at: position, limit: limit) {
        case .null, .falseValue, .trueValue: end = cursor
        case .signed, .unsigned:
            _ = try varint(at: &cursor, limit: limit)
            end = cursor
        case .float: end = cursor + 4
        case .double, .date: end = cursor + 8
        case .uuid: end = cursor + 16
        case .string, .data:
            let count = try length(at: &cursor, limit: limit)
            end = cursor + count
        case .keyed, .unkeyed:
            let body = try uint32(at: cursor, limit: limit)
            guard UInt64(body) <= UInt64(limit - cursor - 4) else {
                throw _BinaryReadFailure.malformed(
                    offset: cursor,
                    reason: "a container of \(body) bytes exceeds the \(limit - cursor - 4) left")
            }
            end = cursor + 4 + Int(body)
        }
        guard end <= limit else {
            throw _BinaryReadFailure.malformed(offset: position, reason: "a value runs past the end")
        }
        return end
    }
}
