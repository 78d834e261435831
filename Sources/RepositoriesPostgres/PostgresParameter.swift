/// A statement parameter in PostgreSQL's binary format, with its type's OID.
struct PostgresParameter: Sendable {
    /// `bigint`.
    static let int8: UInt32 = 20
    /// `text`.
    static let text: UInt32 = 25
    /// `bytea`.
    static let bytea: UInt32 = 17
    /// `bigint[]`.
    static let int8Array: UInt32 = 1016
    /// `text[]`.
    static let textArray: UInt32 = 1009
    /// `bytea[]`.
    static let byteaArray: UInt32 = 1001

    var bytes: [UInt8]
    /// Whether the parameter is SQL's `NULL` (its ``bytes`` are then empty).
    var isNull = false

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// A value in binary format, or SQL's `NULL` for `nil`.
    init(nullable bytes: [UInt8]?) {
        self = bytes.map(PostgresParameter.init(bytes:)) ?? .null
    }

    /// SQL's `NULL`.
    static let null: PostgresParameter = {
        var parameter = PostgresParameter(bytes: [])
        parameter.isNull = true
        return parameter
    }()

    /// A key, as the `id` column's type takes it.
    init(_ key: PostgresKey) {
        switch key {
        case .integer(let value): bytes = Self.bigEndian(value)
        case .text(let value): bytes = Array(value.utf8)
        }
    }

    /// A one-dimensional array of `keys` (of the `id` column's type).
    init(keys: [PostgresKey], integer: Bool) {
        self.init(
            array: keys.map { PostgresParameter($0).bytes }, elementType: integer ? Self.int8 : Self.text)
    }

    /// A one-dimensional array without NULLs.
    init(array elements: [[UInt8]], elementType: UInt32) {
        self.init(array: elements.map(Optional.some), elementType: elementType)
    }

    /// A one-dimensional array, `nil` elements NULL: the header (dimensions, whether it holds
    /// a NULL, element type, length, lower bound 1), then each element's length (-1 for NULL)
    /// and bytes.
    init(array elements: [[UInt8]?], elementType: UInt32) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(20 + elements.reduce(0) { $0 + 4 + ($1?.count ?? 0) })
        bytes += Self.bigEndian(Int32(1))
        bytes += Self.bigEndian(Int32(elements.contains(where: { $0 == nil }) ? 1 : 0))
        bytes += Self.bigEndian(Int32(bitPattern: elementType))
        bytes += Self.bigEndian(Int32(elements.count))
        bytes += Self.bigEndian(Int32(1))
        for element in elements {
            if let element {
                bytes += Self.bigEndian(Int32(element.count))
                bytes += element
            } else {
                bytes += Self.bigEndian(Int32(-1))
            }
        }
        self.bytes = bytes
    }

    static func bigEndian<Value: FixedWidthInteger>(_ value: Value) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian) { Array($0) }
    }
}
