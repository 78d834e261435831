/// One property of an entity that stores can query: its key path, the name stores keep it
/// under (a column, an API parameter) and, from the property's type, its ``FieldType``.
///
/// Declare them once on the entity (``QueryableEntity``); queries then filter and sort by
/// them where the data lives.
public struct QueryableField<Entity>: Sendable, CustomStringConvertible {
    /// The name stores keep the field under: a column's, an API parameter's.
    public let name: String
    /// The kind of value the field holds.
    public let type: FieldType
    /// Whether the field may hold `nil`.
    public let isOptional: Bool
    /// The property, to match a query's key paths against.
    @usableFromInline package let keyPath: AnyKeyPath & Sendable
    /// Reads the field's value from an entity.
    @usableFromInline package let value: @Sendable (Entity) -> FieldValue
    /// Whether the property is a `Float` (or an optional one, or an enum of `Float`s), whose value a JSON encoder
    /// writes with fewer digits than the `Double` it is compared as: an API holding that text
    /// compares another number than Swift does.
    @usableFromInline package let isSinglePrecision: Bool

    /// Declares the property at `keyPath`, kept under `name`.
    ///
    /// A name is lowercase ASCII letters, digits and underscores, starting with a letter,
    /// at most 48 characters, so it is a valid column and parameter name everywhere; a store
    /// refuses a declaration that breaks this when it opens (see
    /// ``QueryableEntity/validateQueryableFields()``).
    ///
    /// Inlinable, so the reader is compiled for the entity and the value's type where the
    /// field is declared: stores call it for every row they check.
    @inlinable
    public init<Value: QueryableValue>(_ keyPath: KeyPath<Entity, Value> & Sendable, name: String) {
        self.name = name
        self.type = Value.fieldType
        self.isOptional = Value.isOptional
        self.keyPath = keyPath
        self.value = { $0[keyPath: keyPath].fieldValue }
        self.isSinglePrecision = Value.isSinglePrecision
    }

    /// The name, the type, and `?` when optional: `mass: double?`.
    public var description: String { "\(name): \(type)\(isOptional ? "?" : "")" }
}

/// An entity whose properties can be queried where the data lives: it lists them in
/// ``queryableFields``, and ``Query/where(_:)`` filters by them.
///
/// ```swift
/// extension Meteorite: QueryableEntity {
///     static let queryableFields: [QueryableField<Meteorite>] = [
///         QueryableField(\.name, name: "name"),
///         QueryableField(\.mass, name: "mass"),
///         QueryableField(\.year, name: "year"),
///     ]
/// }
///
/// let heaviest = Query<Meteorite>()
///     .where(.all(\.year >= 1900, \.mass != nil))
///     .sorted(by: \.mass, .descending)
///     .limit(20)
/// ```
///
/// A field of a type stores cannot keep does not compile; a condition on a property that is
/// not declared throws `rejected` naming it; a declaration with a bad or repeated name is
/// refused when a store opens. No mistake here turns into a silent scan of every entity.
public protocol QueryableEntity: Identifiable {
    /// The properties stores can filter and sort by, each under its own name.
    static var queryableFields: [QueryableField<Self>] { get }
}

extension QueryableEntity {
    /// Checks ``queryableFields``: every name valid and distinct, every key path declared
    /// once.
    ///
    /// - Throws: ``RepositoryError/Code/rejected`` naming the field at fault.
    public static func validateQueryableFields() throws {
        try DeclaredFields.validate(queryableFields, of: Self.self)
    }

    /// ``queryableFields`` as `Any`, for code that only knows the entity as a generic
    /// parameter (see ``DeclaredFields/of(_:)``).
    static var erasedQueryableFields: Any { queryableFields }
}

/// Finds an entity type's declared fields where the type is only known as a generic
/// parameter, as in every store.
package enum DeclaredFields {
    /// The fields `Entity` declares, or `nil` when it is not a ``QueryableEntity``.
    package static func of<Entity>(_ type: Entity.Type) -> [QueryableField<Entity>]? {
        guard let declaring = type as? any QueryableEntity.Type else { return nil }
        return declaring.erasedQueryableFields as? [QueryableField<Entity>]
    }

    /// The declared field at `keyPath`, if `Entity` declares one.
    package static func field<Entity>(at keyPath: AnyKeyPath, of type: Entity.Type) -> QueryableField<Entity>?
    {
        of(type)?.first { $0.keyPath == keyPath }
    }

    /// Checks `fields` as ``QueryableEntity/validateQueryableFields()`` says.
    package static func validate<Entity>(_ fields: [QueryableField<Entity>], of type: Entity.Type) throws {
        var names: Set<String> = []
        var keyPaths: [AnyKeyPath: String] = [:]
        for field in fields {
            guard isValidName(field.name) else {
                throw RepositoryError.rejected(
                    "\(type).queryableFields declares a field named \"\(field.name)\" at \(field.keyPath)",
                    recovery:
                        "Name each field with lowercase ASCII letters, digits and underscores, starting with a letter, at most 48 characters"
                )
            }
            guard names.insert(field.name).inserted else {
                throw RepositoryError.rejected(
                    "\(type).queryableFields declares the name \"\(field.name)\" twice",
                    recovery: "Give each field its own name")
            }
            if let other = keyPaths.updateValue(field.name, forKey: field.keyPath) {
                throw RepositoryError.rejected(
                    "\(type).queryableFields declares \(field.keyPath) twice, as \"\(other)\" and \"\(field.name)\"",
                    recovery: "Declare each property once")
            }
        }
    }

    /// The fields `Entity` declares, checked as ``validate(_:of:)`` says and against the
    /// column names a store keeps for itself; none when it declares none.
    ///
    /// - Throws: `RepositoryError` `rejected` when a declaration breaks the rules, or names a
    ///   field after one of `reserved` (`store` and `reservedDescription` say whose, in the
    ///   message).
    package static func checked<Entity>(
        _ type: Entity.Type, reserving reserved: Set<String>, by store: String, reservedDescription: String
    ) throws -> [QueryableField<Entity>] {
        guard let fields = of(type) else { return [] }
        try validate(fields, of: type)
        if let clash = fields.first(where: { reserved.contains($0.name) }) {
            throw RepositoryError.rejected(
                "\(type).queryableFields declares a field named \"\(clash.name)\", a column \(store) keeps for itself",
                recovery: "Give the field another name: \(reservedDescription)")
        }
        return fields
    }

    /// A declared name in lower camel case, as Swift's default keys spell the property it is
    /// usually named after: `found_at` → `foundAt`.
    package static func lowerCamelCase(_ name: String) -> String {
        let words = name.split(separator: "_", omittingEmptySubsequences: true)
        guard let first = words.first else { return name }
        return String(first) + words.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    private static func isValidName(_ name: String) -> Bool {
        guard let first = name.utf8.first, name.utf8.count <= 48,
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first)
        else { return false }
        return name.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
        }
    }
}
