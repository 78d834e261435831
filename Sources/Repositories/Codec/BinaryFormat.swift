/// The bytes ``EntityCodec/binary`` writes: a version byte, then one value.
///
/// Every value starts with a tag byte that says what follows. All fixed-width numbers are
/// little-endian; a *varint* is an unsigned LEB128 number (7 bits a byte, low bits first, at
/// most 10 bytes); a *zigzag* varint maps a signed number `n` to `(n << 1) ^ (n >> 63)`.
///
/// ```
/// document   = version(1 byte, = 1) value            nothing may follow the value
/// value      = tag(1 byte) body
///   0x00 nil          (no body)
///   0x01 false        (no body)
///   0x02 true         (no body)
///   0x03 signed int   zigzag varint          Int, Int8 … Int64
///   0x04 unsigned int varint                 UInt, UInt8 … UInt64
///   0x05 Float        4 bytes, the IEEE 754 bit pattern (NaN payloads kept)
///   0x06 Double       8 bytes, the IEEE 754 bit pattern
///   0x07 String       varint byte count, then that many bytes of UTF-8
///   0x08 keyed        u32 body length, then the body: u32 entry count, then each entry:
///                     varint key length, the key's UTF-8 (its `stringValue`), a value
///   0x09 unkeyed      u32 body length, then the body: u32 element count, then each value
///   0x0A Date         8 bytes: the Double `timeIntervalSinceReferenceDate` (exact)
///   0x0B Data         varint byte count, then the bytes
///   0x0C UUID         16 bytes, the UUID's bytes in order
/// ```
///
/// Why this shape: a synthesized `init(from:)` asks for its keys in declaration order, the
/// order a synthesized `encode(to:)` wrote them, so the decoder compares the key asked for
/// with the entry at its cursor (a length and a `memcmp`) and only scans the container when
/// that fails (keys asked in another order, a key that is absent). A container's body
/// length lets a value the decoder does not read be skipped in O(1). `Date` is written as
/// the Double its own `Codable` conformance encodes, without the single-value container;
/// `Data` as its bytes rather than an array of numbers; `UUID` as 16 bytes rather than a
/// 36-character string; `URL` as its `absoluteString` (as `JSONEncoder` writes it). Where a
/// value was written another way (a `Date` encoded as a plain Double by a custom
/// `encode(to:)`, a UUID as a string), decoding falls back to the type's own `init(from:)`.
///
/// A dictionary is a keyed container (String and Int keys, as `Dictionary`'s `Codable`
/// asks) whose entries come in the dictionary's iteration order, as `JSONEncoder` writes
/// them without `.sortedKeys`: one dictionary value always encodes to the same bytes, but
/// two equal dictionaries built differently may not. `Optional<Optional<T>>.some(nil)`
/// encodes as nil, as in JSON.
///
/// The decoder trusts nothing: every read is checked against the end of its container, a
/// count or length larger than the bytes left throws before anything is reserved, and
/// nesting deeper than ``maximumDepth`` throws.
enum BinaryFormat {
    /// The format version written first; a decoder refuses any other.
    static let version: UInt8 = 1
    /// The deepest nesting of values (each `Decodable` inside another counts one) that
    /// encoding and decoding accept; deeper throws rather than overflowing the stack.
    ///
    /// `Codable` recurses, so the limit is set by the smallest stack a caller may have:
    /// Darwin's secondary threads (and Swift concurrency's) get 512 KiB, and a debug build
    /// overflowed that at 256 levels; at 128 a test decodes a 100,000-level document on a
    /// 512 KiB thread and gets its error.
    static let maximumDepth = 128
    /// Bytes of a container header after its tag: the u32 body length and the u32 count.
    static let containerHeaderSize = 8

    /// The tag byte that starts every value.
    enum Tag: UInt8 {
        case null = 0x00
        case falseValue = 0x01
        case trueValue = 0x02
        case signed = 0x03
        case unsigned = 0x04
        case float = 0x05
        case double = 0x06
        case string = 0x07
        case keyed = 0x08
        case unkeyed = 0x09
        case date = 0x0A
        case data = 0x0B
        case uuid = 0x0C

        /// What a value with this tag is, for error messages.
        var name: String {
            switch self {
            case .null: "nil"
            case .falseValue, .trueValue: "a Bool"
            case .signed: "a signed integer"
            case .unsigned: "an unsigned integer"
            case .float: "a Float"
            case .double: "a Double"
            case .string: "a String"
            case .keyed: "a keyed container"
            case .unkeyed: "an unkeyed container"
            case .date: "a Date"
            case .data: "Data"
            case .uuid: "a UUID"
            }
        }
    }
}
