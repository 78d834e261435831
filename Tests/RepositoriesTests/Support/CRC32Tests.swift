import Repositories
import Testing

/// The checksum every stored record carries: the standard CRC-32, however the bytes come.
@Suite struct CRC32Tests {
    /// The one-table, one-byte-at-a-time definition the fast path must agree with.
    static func reference(_ bytes: [UInt8], continuing initial: UInt32 = 0) -> UInt32 {
        var crc = ~initial
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    @Test func theCheckValueOfTheStandardIsMet() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum([UInt8]()) == 0)
    }

    @Test func everyLengthAndAlignmentAgreesWithTheDefinition() {
        var generator = SeededRandomNumberGenerator(seed: 0xC3C)
        let bytes = (0..<300).map { _ in UInt8.random(in: 0...255, using: &generator) }
        for start in 0..<9 {
            for end in stride(from: start, through: bytes.count, by: 7) {
                let slice = bytes[start..<end]
                #expect(CRC32.checksum(slice) == Self.reference(Array(slice)), "bytes \(start)..<\(end)")
            }
        }
    }

    @Test func aChecksumContinuesAcrossPieces() {
        let bytes = Array("the checksum of a record's header, then of its payload".utf8)
        for cut in [0, 1, 7, 8, 9, 30, bytes.count] {
            let first = CRC32.checksum(bytes[..<cut])
            #expect(CRC32.checksum(bytes[cut...], continuing: first) == Self.reference(bytes))
        }
    }
}
