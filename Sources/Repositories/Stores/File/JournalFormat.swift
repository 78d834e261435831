/// The byte layout of a ``FileRepository`` file (see Docs/Durability.md).
///
/// ```
/// file   := header record*
/// header := magic[8] format:u16 codec:u8 flags:u8 crc32(magic…flags):u32   (16 bytes)
/// record := length:u32 kind:u8 stamp:u24 payloadCRC:u32 headerCRC:u32 payload[length]
///           headerCRC = crc32 of the 12 bytes before it; payloadCRC = crc32(payload)
/// kind   := 1 save (payload: the entity, encoded by the file's codec)
///         | 2 batch (payload: count:u32 then, per entity, length:u32 and the encoded entity)
///         | 3 delete (payload: a JSON array of IDs, whatever the codec)
///         | 4 clear (no payload)
/// ```
/// Integers are little-endian.
///
/// The format is 2 since entities have versions (``Migrations``): `stamp` is the version
/// of the entity that wrote the record (1 or more). Format 1 files, written before, have
/// `stamp` 0 in every record, and their records read as entity version 1. The stamp is per
/// record rather than per file so that a file is never ambiguous about what wrote each
/// record, whatever mix of versions appended to it.
///
/// The format is 3 since entities have codecs (``EntityCodec``): the header's `codec` byte
/// names the codec every entity in the file is encoded with (``EntityCodec/Identifier``:
/// `J` JSON, `B` binary). Formats 1 and 2 have 0 there, and their entities are JSON.
///
/// A store keeps writing the format and the codec its file has: a format 1 file stays
/// format 1 (so an older release of the package still opens it) as long as the app's entity
/// is at version 1; the first open by an app at version 2 or later migrates it, rewriting it
/// whole in format 3, still JSON. A format 2 file stays format 2. New files are format 3,
/// in the codec the options name.
enum JournalFormat {
    static let magic: [UInt8] = [0x89, 0x52, 0x45, 0x50, 0x4F, 0x0D, 0x0A, 0x1A]  // \x89 R E P O \r \n \x1A
    /// The format new files are written in: records carry their entity version, and the
    /// header the codec of the entities.
    static let format: UInt16 = 3
    /// The format of files written with entity versions and before codecs: JSON entities.
    static let stampedJSONFormat: UInt16 = 2
    /// The format of files written before entity versions: every record is version 1.
    static let unstampedFormat: UInt16 = 1
    /// The highest stamp a record has room for (24 bits).
    static let maxStamp = 0xFF_FFFF
    static let headerSize = 16
    static let recordHeaderSize = 16
    /// The most payload bytes one record holds: its length is a `UInt32` (4 GiB less a byte).
    static let maxPayloadLength = UInt64(UInt32.max)
    /// What a batch payload spends besides its entities' JSON: the count, and a length per entity.
    static let batchCountSize: UInt64 = 4
    static let batchEntrySize: UInt64 = 4

    enum Kind: UInt8 {
        case save = 1
        case batch = 2
        case delete = 3
        case clear = 4
    }

    /// A record read back from the file, its payload not yet decoded.
    struct Record {
        var kind: Kind
        var offset: Int
        var payload: ArraySlice<UInt8>
        /// The version of the entity that wrote it (1 in a format 1 file).
        var entityVersion: Int
    }

    /// What reading the records found.
    struct Scan {
        var records: [Record]
        /// Where the last complete record ends; the file's valid length.
        var validLength: Int
        /// Whether bytes after `validLength` were an incomplete final record.
        var tornTail: Bool
    }

    /// A damaged spot: where, and what was wrong.
    struct Damage: Error {
        var offset: Int
        var reason: String
    }

    /// The formats this version reads.
    static let readableFormats: Set<UInt16> = [unstampedFormat, stampedJSONFormat, format]

    /// The header of a file in `format` whose entities `codec` encodes (recorded from format
    /// 3 on; earlier formats are JSON and record nothing).
    static func header(format: UInt16, codec: EntityCodec.Identifier) -> [UInt8] {
        var bytes = magic
        append(format, to: &bytes)
        bytes += [format >= Self.format ? codec.rawValue : 0, 0]
        append(CRC32.checksum(bytes), to: &bytes)
        return bytes
    }

    /// Frames `payload` as a record stamped `stamp` (0 in a format 1 file, else the entity
    /// version that writes it, at most ``maxStamp``). The caller has checked that the
    /// payload fits (at most ``maxPayloadLength`` bytes): a longer one would trap rather
    /// than be cut short.
    static func record(_ kind: Kind, stamp: UInt32, payload: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(recordHeaderSize + payload.count)
        append(UInt32(payload.count), to: &bytes)
        bytes += [
            kind.rawValue, UInt8(truncatingIfNeeded: stamp), UInt8(truncatingIfNeeded: stamp >> 8),
            UInt8(truncatingIfNeeded: stamp >> 16),
        ]
        append(CRC32.checksum(payload), to: &bytes)
        append(CRC32.checksum(bytes), to: &bytes)
        bytes += payload
        return bytes
    }

    static func batchPayload(_ encoded: [[UInt8]]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(4 + encoded.reduce(0) { $0 + 4 + $1.count })
        append(UInt32(encoded.count), to: &bytes)
        for entity in encoded {
            append(UInt32(entity.count), to: &bytes)
            bytes += entity
        }
        return bytes
    }

    /// Splits a batch payload into its entities' JSON.
    static func batchEntries(_ payload: ArraySlice<UInt8>, at offset: Int) throws(Damage) -> [ArraySlice<
        UInt8
    >] {
        var position = payload.startIndex
        guard let count = readUInt32(payload, at: &position) else {
            throw Damage(offset: offset, reason: "a batch record is too short to hold its count")
        }
        var entries: [ArraySlice<UInt8>] = []
        entries.reserveCapacity(Int(min(count, 1 << 20)))
        for _ in 0..<count {
            guard let length = readUInt32(payload, at: &position), payload.endIndex - position >= Int(length)
            else {
                throw Damage(offset: offset, reason: "a batch record's entries run past its end")
            }
            entries.append(payload[position..<(position + Int(length))])
            position += Int(length)
        }
        guard position == payload.endIndex else {
            throw Damage(offset: offset, reason: "a batch record holds bytes after its last entry")
        }
        return entries
    }

    /// Checks the header; the caller turns a `Damage` into a `corrupted` error naming the file.
    static func validateHeader(_ bytes: [UInt8]) throws(Damage) {
        if bytes.isEmpty {
            throw Damage(offset: 0, reason: "The file is empty, so it is not a repository store")
        }
        guard bytes.count >= headerSize, Array(bytes[0..<8]) == magic else {
            let start = bytes.prefix(8).map { String($0, radix: 16, uppercase: true) }.joined(separator: " ")
            throw Damage(
                offset: 0, reason: "The file is not a repository store (it starts with bytes \(start))")
        }
        var position = 12
        guard let stored = readUInt32(bytes[...], at: &position), stored == CRC32.checksum(bytes[0..<12])
        else {
            throw Damage(offset: 0, reason: "The store's header is damaged (its checksum does not match)")
        }
    }

    /// The version the header records.
    static func headerVersion(_ bytes: [UInt8]) -> UInt16 {
        UInt16(bytes[8]) | UInt16(bytes[9]) << 8
    }

    /// The codec of the entities of a file whose header is `bytes`, in `format`: the one the
    /// header names from format 3 on, JSON before.
    static func headerCodec(_ bytes: [UInt8], format: UInt16) -> EntityCodec.Identifier {
        format >= Self.format ? EntityCodec.Identifier(rawValue: bytes[10]) : .json
    }

    /// Reads every complete record after the header of a file in `format`, stopping at a
    /// torn final record.
    ///
    /// A record is torn when the file ends inside it, or when everything from its start to
    /// the end of the file is zero (space the file system allocated but never filled).
    /// Anything else that does not check out is damage.
    static func scan(_ bytes: [UInt8], format: UInt16) throws(Damage) -> Scan {
        var records: [Record] = []
        var position = headerSize
        while position < bytes.count {
            let remaining = bytes.count - position
            if remaining < recordHeaderSize || bytes[position...].allSatisfy({ $0 == 0 }) {
                return Scan(records: records, validLength: position, tornTail: true)
            }
            var cursor = position
            let length = Int(readUInt32(bytes[...], at: &cursor) ?? 0)
            let kindByte = bytes[position + 4]
            cursor = position + 8
            let payloadCRC = readUInt32(bytes[...], at: &cursor) ?? 0
            let headerCRC = readUInt32(bytes[...], at: &cursor) ?? 0
            guard headerCRC == CRC32.checksum(bytes[position..<(position + 12)]) else {
                throw Damage(
                    offset: position, reason: "A record's header is damaged (its checksum does not match)")
            }
            guard let kind = Kind(rawValue: kindByte) else {
                throw Damage(
                    offset: position,
                    reason:
                        "A record has kind \(kindByte), which this version does not know (written by a newer version?)"
                )
            }
            let stamp =
                Int(bytes[position + 5]) | Int(bytes[position + 6]) << 8 | Int(bytes[position + 7]) << 16
            guard format == unstampedFormat ? stamp == 0 : stamp > 0 else {
                throw Damage(
                    offset: position,
                    reason: "A record's entity version (\(stamp)) is not one format \(format) allows")
            }
            let payloadStart = position + recordHeaderSize
            guard bytes.count - payloadStart >= length else {
                return Scan(records: records, validLength: position, tornTail: true)
            }
            let payload = bytes[payloadStart..<(payloadStart + length)]
            guard CRC32.checksum(payload) == payloadCRC else {
                throw Damage(
                    offset: position, reason: "A record's contents are damaged (its checksum does not match)")
            }
            records.append(
                Record(kind: kind, offset: position, payload: payload, entityVersion: max(stamp, 1)))
            position = payloadStart + length
        }
        return Scan(records: records, validLength: position, tornTail: false)
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
    }

    private static func readUInt32(_ bytes: ArraySlice<UInt8>, at position: inout Int) -> UInt32? {
        guard bytes.endIndex - position >= 4 else { return nil }
        let value =
            UInt32(bytes[position]) | UInt32(bytes[position + 1]) << 8 | UInt32(bytes[position + 2]) << 16
            | UInt32(bytes[position + 3]) << 24
        position += 4
        return value
    }
}
