import Foundation

/// A short, stable name for a text: FNV-1a over its UTF-8, 64 bits, in lowercase hex.
///
/// For keys derived from other keys or IDs (an idempotency key per item of a batch, a key
/// per version a change is sent on): the same text always gives the same name, in every
/// process and on every platform, which `Hasher` does not promise. Not a cryptographic hash.
package enum Fingerprint {
    /// The fingerprint of `text`.
    package static func of(_ text: String) -> String {
        String(value(of: text), radix: 16)
    }

    /// The fingerprint of `text` as a number.
    package static func value(of text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return hash
    }

    /// A UUID made from `text`: the same text always gives the same UUID, for a record whose
    /// identity must come out the same when the same thing is recorded again (a sync killed
    /// and run again). Marked as a name-based UUID (version 8, RFC 9562).
    package static func uuid(of text: String) -> UUID {
        let high = value(of: text)
        let low = value(of: "\(text)\u{1}\(high)")
        var bytes =
            (0..<8).map { UInt8(truncatingIfNeeded: high >> (56 - 8 * $0)) }
            + (0..<8).map { UInt8(truncatingIfNeeded: low >> (56 - 8 * $0)) }
        bytes[6] = (bytes[6] & 0x0F) | 0x80
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }
}
