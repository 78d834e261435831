/// A short, stable name for a text: FNV-1a over its UTF-8, 64 bits, in lowercase hex.
///
/// For keys derived from other keys or IDs (an idempotency key per item of a batch, a key
/// per version a change is sent on): the same text always gives the same name, in every
/// process and on every platform, which `Hasher` does not promise. Not a cryptographic hash.
package enum Fingerprint {
    /// The fingerprint of `text`.
    package static func of(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return String(hash, radix: 16)
    }
}
