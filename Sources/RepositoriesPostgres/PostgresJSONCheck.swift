/// Finds what PostgreSQL would refuse, or could not read back, in the JSON of an entity, and
/// where: `JSONEncoder` writes `Decimal.nan` as a bare `NaN` (not JSON; every later read of
/// the row would fail), and a `String` holding U+0000 as `\u0000`, which `jsonb` refuses.
///
/// The encoder already refuses a `Double` or `Float` that is NaN or infinite, naming the
/// field; this finds the rest.
enum PostgresJSONCheck {
    /// The first value of `json` that is not JSON, or (when `allowsNUL` is false) the first
    /// string holding U+0000, as a field path (`items[2].price`) and what is wrong; `nil`
    /// when there is none.
    static func problem(in json: [UInt8], allowsNUL: Bool) -> (path: String, problem: String)? {
        // Every save comes here: a search without allocations first, and the walk that names
        // the field only when the JSON holds `NaN` or `\u0000` somewhere (perhaps inside a
        // string, where they are harmless text).
        guard json.contains(sequence: nan) || (!allowsNUL && json.contains(sequence: nul)) else { return nil }
        var scanner = Scanner(bytes: json, allowsNUL: allowsNUL)
        return scanner.value(path: [])
    }

    private static let nan = Array("NaN".utf8)
    private static let nul = Array("\\u0000".utf8)

    private enum Step {
        case key(String)
        case index(Int)
    }

    private static func describe(_ path: [Step]) -> String {
        var text = ""
        for step in path {
            switch step {
            case .key(let key): text += text.isEmpty ? key : "." + key
            case .index(let index): text += "[\(index)]"
            }
        }
        return text.isEmpty ? "the entity itself" : text
    }

    /// Walks JSON `JSONEncoder` wrote: well formed, apart from the bare words it writes for
    /// `Decimal.nan`.
    private struct Scanner {
        let bytes: [UInt8]
        let allowsNUL: Bool
        var index = 0

        init(bytes: [UInt8], allowsNUL: Bool) {
            self.bytes = bytes
            self.allowsNUL = allowsNUL
        }

        mutating func skipSpace() {
            while index < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) { index += 1 }
        }

        mutating func value(path: [Step]) -> (path: String, problem: String)? {
            skipSpace()
            guard index < bytes.count else { return nil }
            switch bytes[index] {
            case UInt8(ascii: "{"):
                index += 1
                while true {
                    skipSpace()
                    guard index < bytes.count else { return nil }
                    if bytes[index] == UInt8(ascii: "}") {
                        index += 1
                        return nil
                    }
                    if bytes[index] == UInt8(ascii: ",") {
                        index += 1
                        continue
                    }
                    let (key, nul) = string()
                    if nul, !allowsNUL {
                        return (describe(path), "a key holds U+0000, which jsonb cannot keep")
                    }
                    skipSpace()
                    if index < bytes.count, bytes[index] == UInt8(ascii: ":") { index += 1 }
                    if let found = value(path: path + [.key(key)]) { return found }
                }
            case UInt8(ascii: "["):
                index += 1
                var position = 0
                while true {
                    skipSpace()
                    guard index < bytes.count else { return nil }
                    if bytes[index] == UInt8(ascii: "]") {
                        index += 1
                        return nil
                    }
                    if bytes[index] == UInt8(ascii: ",") {
                        index += 1
                        position += 1
                        continue
                    }
                    if let found = value(path: path + [.index(position)]) { return found }
                }
            case UInt8(ascii: "\""):
                let (_, nul) = string()
                return nul && !allowsNUL
                    ? (describe(path), "the string holds U+0000, which jsonb cannot keep") : nil
            default:
                let start = index
                while index < bytes.count,
                    ![UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x0A, 0x0D, 0x09]
                        .contains(
                            bytes[index])
                {
                    index += 1
                }
                let word = String(decoding: bytes[start..<index], as: UTF8.self)
                guard let first = word.unicodeScalars.first, first.properties.isAlphabetic,
                    !["true", "false", "null"].contains(word)
                else { return nil }
                return (describe(path), "\(word) is not a number JSON can hold (a Decimal.nan)")
            }
        }

        /// Reads a string at `index` (its opening quote), returning its text and whether it
        /// holds U+0000.
        mutating func string() -> (String, Bool) {
            index += 1
            var text: [UInt8] = []
            var nul = false
            while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                if bytes[index] == UInt8(ascii: "\\"), index + 1 < bytes.count {
                    let escape = bytes[index + 1]
                    if escape == UInt8(ascii: "u"), index + 6 <= bytes.count {
                        let hex = bytes[(index + 2)..<(index + 6)]
                        if hex.allSatisfy({ $0 == UInt8(ascii: "0") }) { nul = true }
                        text += bytes[index..<(index + 6)]
                        index += 6
                        continue
                    }
                    text += [escape]
                    index += 2
                    continue
                }
                text.append(bytes[index])
                index += 1
            }
            index += 1
            return (String(decoding: text, as: UTF8.self), nul)
        }
    }
}

extension [UInt8] {
    /// Whether `sequence` occurs in the array.
    fileprivate func contains(sequence: [UInt8]) -> Bool {
        guard let first = sequence.first, sequence.count <= count else { return false }
        var start = startIndex
        while let found = self[start...].firstIndex(of: first) {
            if found + sequence.count > endIndex { return false }
            if self[found..<(found + sequence.count)].elementsEqual(sequence) { return true }
            start = found + 1
        }
        return false
    }
}
