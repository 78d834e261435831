import Foundation

/// How a durable store turns entities into bytes and back: JSON, or the package's own
/// binary format.
///
/// A codec is a `Sendable` value with no mutable state: every `encode` and `decode` call
/// makes its own coder, so any number of threads use one codec at once.
///
/// ```swift
/// let codec = EntityCodec.binary
/// let bytes = try codec.encode(product)
/// let copy = try codec.decode(Product.self, from: bytes)
/// ```
///
/// - ``binary`` decodes about five times faster than `JSONDecoder` and encodes about four
///   times faster than `JSONEncoder` (Docs/Benchmarks.md, figure 11); its format is
///   described byte by byte in `BinaryFormat.swift` (Sources/Repositories/Codec).
/// - `json` writes text anyone can read, with the `JSONEncoder` and `JSONDecoder` you
///   configure.
///
/// A store records the codec's ``identifier`` with the data it writes, and reads data back
/// with ``matching(_:location:)``, which refuses an identifier this version does not know.
public struct EntityCodec: Sendable {
    enum Storage: Sendable {
        case json(makeEncoder: @Sendable () -> JSONEncoder, makeDecoder: @Sendable () -> JSONDecoder)
        case binary
    }

    let storage: Storage

    /// Which codec wrote a piece of data.
    public var identifier: Identifier {
        switch storage {
        case .json: .json
        case .binary: .binary
        }
    }

    /// JSON, with coders made by `makeEncoder` and `makeDecoder` (a new one per call, so
    /// calls on many threads share none).
    public static func json(
        makeEncoder: @escaping @Sendable () -> JSONEncoder = { JSONEncoder() },
        makeDecoder: @escaping @Sendable () -> JSONDecoder = { JSONDecoder() }
    ) -> EntityCodec {
        EntityCodec(storage: .json(makeEncoder: makeEncoder, makeDecoder: makeDecoder))
    }

    /// JSON with a plain `JSONEncoder` and `JSONDecoder`: the format every store wrote
    /// before codecs could be chosen.
    public static var json: EntityCodec { json() }

    /// The package's binary format, written for `Codable` (described in `BinaryFormat.swift`).
    ///
    /// It round-trips every value JSON does, and more exactly: a `Date` keeps every bit of
    /// its `Double`, a `Float` or `Double` may be NaN or infinite. Decoding checks every read
    /// against the bytes and throws `DecodingError` on damaged data; it never traps.
    public static let binary = EntityCodec(storage: .binary)

    /// The codec that reads data written with `identifier`: this one when the identifiers
    /// match (keeping its configured coders), else the default codec of that identifier.
    ///
    /// - Throws: ``RepositoryError/Code/rejected`` naming `location` when this version of the
    ///   package knows no codec with `identifier` (a newer version wrote the data), as the
    ///   stores refuse such data.
    public func matching(_ identifier: Identifier, location: String? = nil) throws -> EntityCodec {
        try identifier.refuseUnlessKnown(in: location)
        if identifier == self.identifier { return self }
        return identifier == .json ? .json : .binary
    }

    // MARK: Encoding

    /// The bytes of `value`.
    ///
    /// - Throws: `EncodingError` when the value cannot be encoded (a non-finite `Double` in
    ///   JSON; in the binary format, values nested more than 128 deep, or a nested container
    ///   filled after its parent was written to again), or whatever its `encode(to:)` throws.
    public func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        var bytes: [UInt8] = []
        try encode(value, appendingTo: &bytes)
        return bytes
    }

    /// Appends the bytes of `value` to `buffer`, as a journal appends a record, copying
    /// nothing in the binary format; on a throw, `buffer` is left as it was.
    ///
    /// - Throws: as ``encode(_:)``.
    public func encode<T: Encodable>(_ value: T, appendingTo buffer: inout [UInt8]) throws {
        switch storage {
        case .json(let makeEncoder, _):
            buffer.append(contentsOf: try makeEncoder().encode(value))
        case .binary:
            try _BinaryEncodingState.encode(value, appendingTo: &buffer, userInfo: [:])
        }
    }

    // MARK: Decoding

    /// Decodes a `T` from `bytes`, which must hold exactly one encoded value, without
    /// copying them.
    ///
    /// - Throws: `DecodingError` with the coding path of the value that failed, when the
    ///   bytes are damaged or do not describe a `T`.
    public func decode<T: Decodable>(_ type: T.Type, from bytes: UnsafeRawBufferPointer) throws -> T {
        switch storage {
        case .json(_, let makeDecoder):
            guard let base = bytes.baseAddress, !bytes.isEmpty else {
                return try makeDecoder().decode(T.self, from: Data())
            }
            // The bytes outlive the call, so JSONDecoder may read them where they are.
            let data = Data(
                bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: bytes.count, deallocator: .none)
            return try makeDecoder().decode(T.self, from: data)
        case .binary:
            return try _BinaryDecoder.decode(T.self, from: bytes, userInfo: [:])
        }
    }

    /// Decodes a `T` from `bytes` (`Data`, `[UInt8]`, an `ArraySlice<UInt8>`), which must
    /// hold exactly one encoded value.
    ///
    /// - Throws: `DecodingError` with the coding path of the value that failed, when the
    ///   bytes are damaged or do not describe a `T`.
    public func decode<T: Decodable>(_ type: T.Type, from bytes: some ContiguousBytes) throws -> T {
        try bytes.withUnsafeBytes { try decode(T.self, from: $0) }
    }
}
