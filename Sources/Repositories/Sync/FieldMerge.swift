import Foundation

/// The three-way merge of ``ConflictPolicy/mergeFields(tie:)``, as a pure function the sync
/// engine calls while it settles a conflict: three versions and a tie in, the version to
/// keep and the ``ConflictResolution`` out. No I/O, no state.
///
/// The rules, over the entity's top-level coded fields (the keys of its JSON object):
/// - a field equal on both sides takes that value, whatever the base held (both made the
///   same change, or neither changed it);
/// - a field equal to the base on one side takes the other side's value (only it changed);
/// - a field that differs on all three asks the tie, once per field;
/// - without a base, with a deletion on either side, or with an entity that is not an
///   object of fields, the tie decides the whole entity (`field` is `nil`).
///
/// A field is present or absent: an optional encoded as `null` counts as absent, so setting
/// or clearing it is a change like any other. Values compare as JSON: numbers as 64-bit
/// integers or doubles, nested objects whole and regardless of key order.
package enum FieldMerge {
    /// What a merge kept, and which rule decided.
    package struct Outcome<Entity: Sendable>: Sendable {
        /// The entity to keep: `local` or `remote` themselves when the merge kept one of
        /// them whole (so `==` and identity-sensitive state survive), else a new value
        /// decoded from the merged fields; `nil`: the entity is deleted.
        package var result: Entity?
        /// Which rule decided.
        package var resolution: ConflictResolution
    }

    /// Merges `local` (this device's change; `nil`: a deletion) and `remote` (the remote's
    /// copy; `nil`: deleted there) from `base` (the version the change was made on; `nil`:
    /// the device had none), letting `tie` decide what both changed.
    ///
    /// An entity that fails to encode, or whose merged fields fail to decode (an
    /// `init(from:)` that checks a rule across fields), is decided whole by `tie`.
    ///
    /// - Complexity: O(*n*) in the size of the three encoded entities.
    package static func merge<Entity: Codable & Sendable>(
        base: Entity?, local: Entity?, remote: Entity?, tie: ConflictPolicy<Entity>.Tie
    ) -> Outcome<Entity> {
        let whole = { () -> Outcome<Entity> in
            switch tie.choose(nil, base, local, remote) {
            case .local: Outcome(result: local, resolution: .tieTookLocal)
            case .remote: Outcome(result: remote, resolution: .tieTookRemote)
            }
        }
        guard let base, let local, let remote,
            let baseFields = fields(of: base), let localFields = fields(of: local),
            let remoteFields = fields(of: remote)
        else { return whole() }

        var merged: [String: CodedValue] = [:]
        var fromLocal: [String] = []
        var fromRemote: [String] = []
        var tied: [String: ConflictSide] = [:]
        let names = Set(baseFields.keys).union(localFields.keys).union(remoteFields.keys)
        for name in names.sorted() {
            let was = present(baseFields[name])
            let mine = present(localFields[name])
            let theirs = present(remoteFields[name])
            let side: ConflictSide
            if mine == theirs {
                side = .local
            } else if mine == was {
                side = .remote
                fromRemote.append(name)
            } else if theirs == was {
                side = .local
                fromLocal.append(name)
            } else {
                side = tie.choose(name, base, local, remote)
                tied[name] = side
            }
            // The chosen side's own spelling: `null` or absent, as its decoder expects.
            if let value = side == .local ? localFields[name] : remoteFields[name] { merged[name] = value }
        }

        let resolution = ConflictResolution.mergedByField(
            localFields: fromLocal, remoteFields: fromRemote, tiedFields: tied)
        if merged == localFields { return Outcome(result: local, resolution: resolution) }
        if merged == remoteFields { return Outcome(result: remote, resolution: resolution) }
        guard let result = decode(Entity.self, from: merged) else { return whole() }
        return Outcome(result: result, resolution: resolution)
    }

    /// `entity`'s top-level fields, or `nil` when it does not encode, or not as an object.
    private static func fields(of entity: some Encodable) -> [String: CodedValue]? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        guard let data = try? encoder.encode(entity),
            case .object(let fields) = try? JSONDecoder().decode(CodedValue.self, from: data)
        else { return nil }
        return fields
    }

    private static func decode<Entity: Decodable>(_ type: Entity.Type, from fields: [String: CodedValue])
        -> Entity?
    {
        guard let data = try? JSONEncoder().encode(CodedValue.object(fields)) else { return nil }
        return try? JSONDecoder().decode(type, from: data)
    }

    /// A field's value for comparing: `null` is the same as absent.
    private static func present(_ value: CodedValue?) -> CodedValue? {
        value == .null ? nil : value
    }

    /// A JSON value, as the merge compares and carries a field.
    private indirect enum CodedValue: Codable, Equatable {
        case null
        case bool(Bool)
        case integer(Int64)
        case unsigned(UInt64)
        case number(Double)
        case string(String)
        case array([CodedValue])
        case object([String: CodedValue])

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                self = .null
            } else if let value = try? container.decode(Bool.self) {
                self = .bool(value)
            } else if let value = try? container.decode(Int64.self) {
                self = .integer(value)
            } else if let value = try? container.decode(UInt64.self) {
                self = .unsigned(value)
            } else if let value = try? container.decode(Double.self) {
                self = .number(value)
            } else if let value = try? container.decode(String.self) {
                self = .string(value)
            } else if let value = try? container.decode([CodedValue].self) {
                self = .array(value)
            } else {
                self = .object(try container.decode([String: CodedValue].self))
            }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .null: try container.encodeNil()
            case .bool(let value): try container.encode(value)
            case .integer(let value): try container.encode(value)
            case .unsigned(let value): try container.encode(value)
            case .number(let value): try container.encode(value)
            case .string(let value): try container.encode(value)
            case .array(let value): try container.encode(value)
            case .object(let value): try container.encode(value)
            }
        }
    }
}
