/// CRC-32 (IEEE 802.3, the polynomial zlib and PNG use), for checking stored records.
package enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { byte in
        var crc = UInt32(byte)
        for _ in 0..<8 {
            crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1
        }
        return crc
    }

    /// Returns the checksum of `bytes`, continuing from `initial` (the checksum of what came
    /// before them, or 0).
    ///
    /// - Complexity: O(*n*).
    package static func checksum(_ bytes: UnsafeRawBufferPointer, continuing initial: UInt32 = 0) -> UInt32 {
        var crc = ~initial
        table.withUnsafeBufferPointer { table in
            for byte in bytes {
                crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
            }
        }
        return ~crc
    }

    /// Returns the checksum of `bytes`.
    package static func checksum(_ bytes: some Sequence<UInt8>, continuing initial: UInt32 = 0) -> UInt32 {
        var crc = ~initial
        for byte in bytes {
            crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
        }
        return ~crc
    }
}
