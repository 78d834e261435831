import Foundation

/// The kind of value a declared field holds, which decides how stores keep it: the type of
/// a column, how a request parameter is spelled.
public enum FieldType: String, Sendable, Hashable, CustomStringConvertible {
    /// `Bool`.
    case bool
    /// A whole number: `Int`, `Int64`, `Int32`, `Int16`, `Int8`, `UInt32`, `UInt16`, `UInt8`.
    case integer
    /// `Double` or `Float`.
    case double
    /// `String`.
    case text
    /// `Date`.
    case date

    /// The type's name.
    public var description: String { rawValue }
}

/// A type a declared field (``QueryableField``) can have: `Bool`, the integers that fit in
/// `Int64`, `Double`, `Float`, `String`, `Date`, an optional of one of them, and an enum
/// with one of them as its raw value, which states its conformance:
///
/// ```swift
/// enum Status: String, Codable, QueryableValue { case draft, published }
/// ```
///
/// A field of another type does not compile. A field compares and sorts by its
/// ``fieldValue`` (an enum by its raw value), in the same order in every store.
public protocol QueryableValue: Sendable {
    /// The kind of value the field holds.
    static var fieldType: FieldType { get }
    /// Whether the field may hold `nil`; only `Optional` says yes.
    static var isOptional: Bool { get }
    /// Whether the value is a `Float` (an optional one, an enum with a `Float` raw value),
    /// which JSON writes with fewer digits than the `Double` it is compared as.
    static var isSinglePrecision: Bool { get }
    /// This value as stores keep it.
    var fieldValue: FieldValue { get }
}

extension QueryableValue {
    /// No: only `Optional` holds `nil`.
    public static var isOptional: Bool { false }
    /// No: only `Float` is.
    public static var isSinglePrecision: Bool { false }
}

extension QueryableValue where Self: RawRepresentable, RawValue: QueryableValue {
    /// The raw value's type.
    public static var fieldType: FieldType { RawValue.fieldType }
    /// The raw value's.
    public var fieldValue: FieldValue { rawValue.fieldValue }
    /// The raw value's.
    public static var isSinglePrecision: Bool { RawValue.isSinglePrecision }
}

extension Optional: QueryableValue where Wrapped: QueryableValue {
    /// The wrapped type's.
    public static var fieldType: FieldType { Wrapped.fieldType }
    /// Yes.
    public static var isOptional: Bool { true }
    /// The wrapped type's.
    public static var isSinglePrecision: Bool { Wrapped.isSinglePrecision }
    /// ``FieldValue/null`` for `nil`, else the wrapped value's.
    public var fieldValue: FieldValue { map(\.fieldValue) ?? .null }
}

extension Bool: QueryableValue {
    /// ``FieldType/bool``.
    public static var fieldType: FieldType { .bool }
    /// ``FieldValue/bool(_:)``.
    public var fieldValue: FieldValue { .bool(self) }
}

extension String: QueryableValue {
    /// ``FieldType/text``.
    public static var fieldType: FieldType { .text }
    /// ``FieldValue/text(_:)``, in NFC (``FieldValue/normalizedText(_:)``).
    public var fieldValue: FieldValue { .normalizedText(self) }
}

extension Date: QueryableValue {
    /// ``FieldType/date``.
    public static var fieldType: FieldType { .date }
    /// ``FieldValue/date(_:)``.
    public var fieldValue: FieldValue { .date(self) }
}

extension Double: QueryableValue {
    /// ``FieldType/double``.
    public static var fieldType: FieldType { .double }
    /// ``FieldValue/double(_:)``.
    public var fieldValue: FieldValue { .double(self) }
}

extension Float: QueryableValue {
    /// ``FieldType/double``.
    public static var fieldType: FieldType { .double }
    /// ``FieldValue/double(_:)``.
    public var fieldValue: FieldValue { .double(Double(self)) }
    /// Yes.
    public static var isSinglePrecision: Bool { true }
}

/// An integer type that fits in `Int64`, so a field of it is a ``FieldType/integer``.
public protocol QueryableInteger: QueryableValue, BinaryInteger {}

extension QueryableInteger {
    /// ``FieldType/integer``.
    public static var fieldType: FieldType { .integer }
    /// ``FieldValue/integer(_:)``.
    public var fieldValue: FieldValue { .integer(Int64(self)) }
}

extension Int: QueryableInteger {}
extension Int64: QueryableInteger {}
extension Int32: QueryableInteger {}
extension Int16: QueryableInteger {}
extension Int8: QueryableInteger {}
extension UInt32: QueryableInteger {}
extension UInt16: QueryableInteger {}
extension UInt8: QueryableInteger {}
