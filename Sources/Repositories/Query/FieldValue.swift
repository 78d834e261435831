import Foundation

/// A declared field's value as stores keep and compare it: what a ``QueryableValue``
/// becomes in an index, a column or a request parameter.
///
/// Values of one field compare in one total order, the order every store sorts and filters
/// by, so a query answers the same in memory, in SQL and through an API:
/// - `null` (a `nil` optional) comes before every other value;
/// - numbers and dates compare as Swift compares them, except that `Double.nan` equals
///   itself and comes after every other number, as in PostgreSQL;
/// - text compares by the Unicode scalars of its NFC form (the order of its UTF-8 bytes, as
///   `COLLATE "C"` compares NFC text), so `"é"` precomposed equals `"e\u{301}"`, and
///   `"Z" < "a"`. Every text value is kept in NFC: `String`'s ``QueryableValue/fieldValue``
///   normalises it, and so should code that makes a ``text(_:)`` itself
///   (``normalizedText(_:)``). Swift's own `String` `<` agrees for most text, but not for
///   every decomposed spelling on every platform, so it is never used here.
public enum FieldValue: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// No value: a `nil` optional.
    case null
    /// A `Bool`; `false` comes before `true`.
    case bool(Bool)
    /// A whole number.
    case integer(Int64)
    /// A floating-point number.
    case double(Double)
    /// Text.
    case text(String)
    /// A moment in time.
    case date(Date)

    /// ``text(_:)`` holding `string` in NFC, as every text value must.
    public static func normalizedText(_ string: String) -> FieldValue {
        .text(nfc(string))
    }

    /// `string` in NFC; ASCII text, its own NFC form, is returned as it is.
    package static func nfc(_ string: String) -> String {
        string.utf8.allSatisfy { $0 < 0x80 } ? string : string.precomposedStringWithCanonicalMapping
    }

    /// Whether this is ``null``.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// Where a value's kind goes when two kinds are compared (a field has one kind, so only
    /// `null` against a value happens in practice).
    private var rank: Int {
        switch self {
        case .null: 0
        case .bool: 1
        case .integer: 2
        case .double: 3
        case .text: 4
        case .date: 5
        }
    }

    /// Whether two values are equal; `nan` equals itself here.
    public static func == (lhs: FieldValue, rhs: FieldValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let left), .bool(let right)): left == right
        case (.integer(let left), .integer(let right)): left == right
        case (.double(let left), .double(let right)): left == right || (left.isNaN && right.isNaN)
        case (.text(let left), .text(let right)): left.utf8.elementsEqual(right.utf8)
        case (.date(let left), .date(let right)): left == right
        default: false
        }
    }

    /// Hashes the value consistently with ``==(_:_:)``.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(rank)
        switch self {
        case .null: break
        case .bool(let value): hasher.combine(value)
        case .integer(let value): hasher.combine(value)
        case .double(let value): hasher.combine(value.isNaN ? Double.infinity : value)
        case .text(let value):
            hasher.combine(value.utf8.count)
            for byte in value.utf8 { hasher.combine(byte) }
        case .date(let value): hasher.combine(value)
        }
    }

    /// Whether `lhs` comes before `rhs` in the order stores sort by.
    public static func < (lhs: FieldValue, rhs: FieldValue) -> Bool {
        switch (lhs, rhs) {
        case (.bool(let left), .bool(let right)): !left && right
        case (.integer(let left), .integer(let right)): left < right
        case (.double(let left), .double(let right)): left.isNaN ? false : right.isNaN || left < right
        case (.text(let left), .text(let right)): left.utf8.lexicographicallyPrecedes(right.utf8)
        case (.date(let left), .date(let right)): left < right
        default: lhs.rank < rhs.rank
        }
    }

    /// The value as a Swift literal would spell it, for messages and `instrumented` events.
    public var description: String {
        switch self {
        case .null: "nil"
        case .bool(let value): "\(value)"
        case .integer(let value): "\(value)"
        case .double(let value): "\(value)"
        case .text(let value): value.debugDescription
        case .date(let value): value.formatted(.iso8601)
        }
    }

    /// The value spelled exactly: as ``description``, but a date as its seconds since the
    /// reference date, to the last bit.
    package var exactDescription: String {
        if case .date(let value) = self { return "date(\(value.timeIntervalSinceReferenceDate))" }
        return description
    }

    /// Whether this value is text starting with `prefix`, both in NFC: the Unicode scalars of
    /// the NFC forms, case-sensitive. A prefix may end before a combining mark that follows it
    /// in the NFC form (`"b"` is a prefix of `"b\u{301}"`, which has no precomposed form),
    /// but not inside a precomposed character (`"e"` is no prefix of `"é"`, however spelled).
    func hasTextPrefix(_ prefix: String) -> Bool {
        guard case .text(let text) = self else { return false }
        return text.utf8.starts(with: prefix.utf8)
    }
}

extension FieldValue {
    /// The smallest text after every text starting with `prefix`, in code-point order: the
    /// prefix with its last scalar raised by one (past the surrogates, which no text holds),
    /// a last U+10FFFF dropped first; `nil` when nothing is left. It is valid text, as
    /// PostgreSQL demands, and it is not normalised: it is a bound, not a value. SQL stores
    /// and APIs that order text by code point run a prefix as `>= prefix AND < bound`.
    package static func prefixUpperBound(_ prefix: String) -> String? {
        var scalars = Array(prefix.unicodeScalars)
        while let last = scalars.popLast() {
            guard last.value < 0x10FFFF else { continue }
            let next = last.value == 0xD7FF ? 0xE000 : last.value + 1
            scalars.append(Unicode.Scalar(next)!)
            var bound = String.UnicodeScalarView()
            bound.append(contentsOf: scalars)
            return String(bound)
        }
        return nil
    }
}
