import Foundation

/// The one spelling of a text that Swift's `String` equality cannot tell from others.
///
/// Swift compares strings by Unicode canonical equivalence (`"caf\u{E9}" == "cafe\u{301}"`),
/// while a database or a server compares bytes. Stores that key rows or URLs by an ID's text
/// normalize it to NFC here, so that IDs Swift takes as equal address one entity. JSON keys
/// are normalized whole, which normalizes each string inside: the structural characters of
/// JSON never combine with their neighbours.
package enum CanonicalText {
    /// `text` in Unicode Normalization Form C. Text with no character from U+0300 on (ASCII,
    /// Latin-1 and the Latin extensions, precomposed) is in NFC already and is returned as it is.
    ///
    /// - Complexity: O(*n*); one pass over the UTF-8 when the text is canonical as it is.
    package static func canonical(_ text: String) -> String {
        if isCanonicalAsItIs(text) { return text }
        return text.precomposedStringWithCanonicalMapping
    }

    /// Whether every character of `text` is below U+0300, where Unicode's NFC quick check
    /// answers yes for every character: nothing there composes with what precedes it, or
    /// changes. In UTF-8 those are exactly the texts with no byte from `0xCC` up (U+0300 is
    /// `CC 80`; continuation bytes stop at `0xBF`).
    package static func isCanonicalAsItIs(_ text: String) -> Bool {
        let contiguous = text.utf8.withContiguousStorageIfAvailable { bytes in
            bytes.allSatisfy { $0 < firstByteFromU0300 }
        }
        return contiguous ?? text.utf8.allSatisfy { $0 < firstByteFromU0300 }
    }

    /// The smallest UTF-8 byte that starts a character from U+0300 on.
    private static var firstByteFromU0300: UInt8 { 0xCC }

    /// The JSON form of IDs that are neither integers, strings nor UUIDs. Fixed, rather than a
    /// caller's encoder, so that a stored key never depends on coder options.
    package static func keyJSON(_ id: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return canonical(String(decoding: try encoder.encode(id), as: UTF8.self))
    }
}
