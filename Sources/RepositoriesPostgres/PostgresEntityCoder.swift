import Foundation
import Repositories

/// Turns entities into a table's bodies and back: the options' coders (or the table's own),
/// the checks PostgreSQL's `jsonb` needs, and the migrations that bring a row an older
/// version wrote up to the entity.
struct PostgresEntityCoder<Entity: Codable & Identifiable & Sendable>: Sendable
where Entity.ID: Codable & Sendable {
    let storage: PostgresBodyStorage
    let migrations: Migrations<Entity>
    let location: String
    /// The fields the entity declares, in the order of the table's field columns; none when
    /// the table keeps none (``PostgresTable/fields``).
    let fields: [QueryableField<Entity>]
    private let encoder: JSONEncoder
    private let decoder: JSONDecoder

    init(
        storage: PostgresBodyStorage, options: PostgresOptions, migrations: Migrations<Entity>,
        location: String, declaresFields: Bool
    ) {
        self.storage = storage
        self.migrations = migrations
        self.location = location
        fields = declaresFields ? DeclaredFields.of(Entity.self) ?? [] : []
        encoder = options.makeEncoder?() ?? storage.defaultEncoder()
        decoder = options.makeDecoder?() ?? storage.defaultDecoder()
    }

    /// The version of the entity this repository writes, which every row it writes carries.
    var schemaVersion: Int { migrations.currentVersion }

    /// The key of `id`.
    ///
    /// - Throws: `encodingFailed` naming the ID when the ID cannot be a key.
    func key(for id: Entity.ID) throws -> PostgresKey {
        do {
            return try PostgresKey(id)
        } catch {
            throw RepositoryError.encodingFailed(id: String(describing: id), underlying: error)
        }
    }

    /// The entity's key, JSON, and field values.
    ///
    /// The field values are read from the JSON as it decodes, not from `entity`: the columns
    /// must agree with the body a query reads back (a coder that keeps dates in whole seconds
    /// would otherwise leave them apart).
    ///
    /// - Throws: `encodingFailed` naming the ID and the field when the encoder fails, the
    ///   JSON holds what PostgreSQL could not keep or read back (``PostgresJSONCheck``), or a
    ///   field's value cannot be a column (``fieldColumns(of:id:)``).
    func encode(_ entity: Entity) throws -> (PostgresKey, PostgresEncodedRow) {
        let key: PostgresKey
        let body: [UInt8]
        do {
            key = try PostgresKey(entity.id)
            body = Array(try encoder.encode(entity))
        } catch {
            throw RepositoryError.encodingFailed(id: String(describing: entity.id), underlying: error)
        }
        if let found = PostgresJSONCheck.problem(in: body, allowsNUL: storage == .bytea) {
            throw RepositoryError(
                .encodingFailed,
                reason: "\(Entity.self) cannot be stored in \(location): at \(found.path), \(found.problem)",
                recovery: found.problem.contains("U+0000")
                    ? "Remove U+0000 from the string before saving; nothing was written"
                    : "Replace the NaN before saving (with nil or a number); nothing was written",
                id: String(describing: entity.id), location: location)
        }
        guard !fields.isEmpty else { return (key, PostgresEncodedRow(body: body, fields: [])) }
        let stored: Entity
        do {
            stored = try decoder.decode(Entity.self, from: Data(body))
        } catch {
            throw RepositoryError(
                .encodingFailed,
                reason:
                    "\(Entity.self)'s JSON does not decode with the repository's decoder, so its fields cannot be read from it",
                recovery: "Make the encoder and the decoder of PostgresOptions agree; nothing was written",
                id: String(describing: entity.id), location: location, underlying: error)
        }
        return (key, PostgresEncodedRow(body: body, fields: try fieldColumns(of: stored, id: entity.id)))
    }

    /// The values of `entity`'s declared fields as their columns keep them, in binary format
    /// (`nil` for `NULL`), in the columns' order.
    ///
    /// - Throws: `encodingFailed` naming `id` and the field when a value cannot be a column:
    ///   text holding U+0000, or a date outside what `timestamptz` holds.
    func fieldColumns(of entity: Entity, id: Entity.ID) throws -> [[UInt8]?] {
        try fields.map { field in
            let value = field.value(entity)
            if case .text(let text) = value, text.utf8.contains(0) {
                throw RepositoryError(
                    .encodingFailed,
                    reason:
                        "\(Entity.self)'s field \(field.name) holds U+0000, which a PostgreSQL text column cannot keep",
                    recovery: "Remove U+0000 from the string before saving; nothing was written",
                    id: String(describing: id), location: location)
            }
            do {
                return try PostgresFieldColumn.binary(value, field: field.name)
            } catch let error as RepositoryError {
                throw RepositoryError(
                    .encodingFailed, reason: error.reason,
                    recovery: (error.recovery ?? "") + "; nothing was written", id: String(describing: id),
                    location: location)
            }
        }
    }

    /// The entity in `body`, a row `version` of the entity wrote, upgraded to the current one.
    ///
    /// - Throws: `writtenByNewerVersion` naming the ID when a newer version of the entity wrote
    ///   the row; `decodingFailed` naming the ID when it does not decode, or an upgrade threw.
    func decode(_ body: [UInt8], writtenBy version: Int, key: PostgresKey?) throws -> Entity {
        do {
            if version == migrations.currentVersion {
                return try decoder.decode(Entity.self, from: Data(body))
            }
            return try migrations.decode(Data(body), writtenBy: version, using: decoder)
        } catch let error as RepositoryError where error.code == .writtenByNewerVersion {
            throw Self.newer(version, key: key, location: location, known: migrations.currentVersion)
        } catch {
            throw RepositoryError(
                .decodingFailed,
                reason:
                    "A row of the table, written by version \(version) of \(Entity.self), does not decode",
                recovery: version == migrations.currentVersion
                    ? "Make the fields added since the row was written optional (or give them a default in init(from:)), add a migration, or correct the row with SQL"
                    : "Make the upgrade from version \(version) read the row, or correct the row with SQL",
                id: key?.description ?? "NULL", location: location, underlying: error)
        }
    }

    /// `writtenByNewerVersion` for the row of `key`, which `version` wrote, read by `known`.
    static func newer(_ version: Int, key: PostgresKey?, location: String, known: Int) -> RepositoryError {
        var error = RepositoryError.writtenByNewerVersion(version, knownVersion: known, location: location)
        error.id = key?.description
        return error
    }
}

/// A row as the repository writes it: the entity's JSON, and its declared fields' columns in
/// binary format (`nil` for `NULL`), in the table's order (none when it declares none).
struct PostgresEncodedRow: Sendable {
    var body: [UInt8]
    var fields: [[UInt8]?]
}
