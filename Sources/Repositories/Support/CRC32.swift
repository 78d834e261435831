/// CRC-32 (IEEE 802.3, the polynomial zlib and PNG use), for checking stored records.
///
/// Computed eight bytes at a time ("slicing by 8": eight tables of 256 entries, one lookup
/// per byte but no dependency between the eight), which a store's open, checking every
/// record, spends several times less on than the one-table, one-byte-at-a-time loop.
package enum CRC32 {
    /// Eight tables, one after another: table 0 is the classic one; table *k* gives the
    /// effect of a byte followed by *k* zero bytes.
    private static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for byte in 0..<256 {
            var crc = UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
            tables[byte] = crc
        }
        for table in 1..<8 {
            for byte in 0..<256 {
                let previous = tables[(table - 1) * 256 + byte]
                tables[table * 256 + byte] = (previous >> 8) ^ tables[Int(previous & 0xFF)]
            }
        }
        return tables
    }()

    /// Returns the checksum of `bytes`, continuing from `initial` (the checksum of what came
    /// before them, or 0).
    ///
    /// - Complexity: O(*n*).
    package static func checksum(_ bytes: UnsafeRawBufferPointer, continuing initial: UInt32 = 0) -> UInt32 {
        var crc = ~initial
        tables.withUnsafeBufferPointer { table in
            var offset = 0
            let count = bytes.count
            while count - offset >= 8 {
                let low = bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self).littleEndian ^ crc
                let high = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self).littleEndian
                crc =
                    table[7 * 256 + Int(low & 0xFF)] ^ table[6 * 256 + Int((low >> 8) & 0xFF)]
                    ^ table[5 * 256 + Int((low >> 16) & 0xFF)] ^ table[4 * 256 + Int(low >> 24)]
                    ^ table[3 * 256 + Int(high & 0xFF)] ^ table[2 * 256 + Int((high >> 8) & 0xFF)]
                    ^ table[256 + Int((high >> 16) & 0xFF)] ^ table[Int(high >> 24)]
                offset += 8
            }
            while offset < count {
                crc = table[Int((crc ^ UInt32(bytes[offset])) & 0xFF)] ^ (crc >> 8)
                offset += 1
            }
        }
        return ~crc
    }

    /// Returns the checksum of `bytes`.
    package static func checksum(_ bytes: some Sequence<UInt8>, continuing initial: UInt32 = 0) -> UInt32 {
        if let crc = bytes.withContiguousStorageIfAvailable({
            checksum(UnsafeRawBufferPointer($0), continuing: initial)
        }) {
            return crc
        }
        return checksum(Array(bytes), continuing: initial)
    }
}
