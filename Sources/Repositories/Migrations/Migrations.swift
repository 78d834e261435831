import Foundation

/// The version of an entity an app knows, and the typed upgrades that bring records written
/// by its older versions up to it.
///
/// Each upgrade reads the shape of one version and returns the shape of the next, so each
/// conversion is written once and a record of any older version goes through the chain:
///
/// ```swift
/// struct TodoV1: Codable, Sendable {  // what version 1 of the app wrote
///     var id: Int
///     var title: String
/// }
///
/// struct TodoV2: Codable, Sendable {  // version 2 added `done`
///     var id: Int
///     var title: String
///     var done: Bool
/// }
///
/// struct Todo: Codable, Identifiable, Sendable {  // version 3 renamed `title`
///     var id: Int
///     var text: String
///     var done: Bool
/// }
///
/// let migrations = try Migrations<Todo>(
///     .upgrade(from: 1) { (old: TodoV1) in TodoV2(id: old.id, title: old.title, done: false) },
///     .upgrade(from: 2) { (old: TodoV2) in Todo(id: old.id, text: old.title, done: old.done) })
/// migrations.currentVersion  // 3
/// let todos = try await FileRepository<Todo>(fileURL: url, migrations: migrations)
/// ```
///
/// `Migrations()`, with no upgrades, is version 1: what every store assumes of data written
/// before it knew about versions.
///
/// A store decodes a record of version *n* as the shape the upgrade from *n* reads, then
/// hands the value from upgrade to upgrade until it is the entity, using the store's own
/// decoder (its date and key strategies). Values pass between upgrades in memory; nothing is
/// re-encoded until the store writes the upgraded entity.
///
/// The chain is checked when it is made, because a mistake in it would strand data:
/// the upgrades must start at version 1 and go up one version at a time (no gap, no
/// version twice); each upgrade must read the type the one before returns; and the last
/// must return `Entity`. A chain that breaks a rule throws `rejected` naming the upgrade
/// (a thrown error rather than a trap, so that a test of the app can prove its chain).
///
/// An upgrade may throw: the record it was given is then treated as one that does not
/// decode (the store refuses to open, or sets it aside, as its options say).
public struct Migrations<Entity: Decodable & Sendable>: Sendable {
    /// The version of `Entity` this app writes: one more than the last upgrade's, or 1.
    public let currentVersion: Int
    /// The upgrades, the one from version 1 first.
    public let upgrades: [Upgrade]

    /// The most versions a chain may hold: the number a store's record has room for.
    public static var maximumVersion: Int { 0xFF_FFFF }

    /// No upgrades: the entity is at version 1.
    public init() {
        currentVersion = 1
        upgrades = []
    }

    /// The chain of `upgrades`, the one from version 1 first.
    ///
    /// - Parameter upgrades: one upgrade from each version below the current one.
    /// - Throws: `rejected` naming the upgrade when the chain has a gap, a version twice,
    ///   an upgrade that reads another type than the one before returns, or a last upgrade
    ///   that does not return `Entity`.
    public init(_ upgrades: Upgrade...) throws {
        try self.init(upgrades)
    }

    /// The chain of `upgrades`, the one from version 1 first.
    ///
    /// - Parameter upgrades: one upgrade from each version below the current one.
    /// - Throws: `rejected` naming the upgrade when the chain has a gap, a version twice,
    ///   an upgrade that reads another type than the one before returns, or a last upgrade
    ///   that does not return `Entity`.
    public init(_ upgrades: [Upgrade]) throws {
        for (position, upgrade) in upgrades.enumerated() {
            let expected = position + 1
            guard upgrade.fromVersion == expected else {
                let problem =
                    upgrades[..<position].contains(where: { $0.fromVersion == upgrade.fromVersion })
                    ? "version \(upgrade.fromVersion) has two upgrades"
                    : "the upgrade from version \(expected) is missing (the next one given is from version \(upgrade.fromVersion))"
                throw Self.invalid(
                    problem, recovery: "List one upgrade from each version, from version 1 up, in order")
            }
            if position > 0 {
                let previous = upgrades[position - 1]
                guard previous.newType == upgrade.oldType else {
                    throw Self.invalid(
                        "the upgrade from version \(previous.fromVersion) returns \(previous.newTypeName), but the upgrade from version \(upgrade.fromVersion) reads \(upgrade.oldTypeName)",
                        recovery: "Make each upgrade read the type the one before it returns")
                }
            }
        }
        if let last = upgrades.last, last.newType != ObjectIdentifier(Entity.self) {
            throw Self.invalid(
                "the last upgrade (from version \(last.fromVersion)) returns \(last.newTypeName), not \(Entity.self)",
                recovery: "Make the last upgrade return the entity the store holds")
        }
        guard upgrades.count < Self.maximumVersion else {
            throw Self.invalid(
                "\(upgrades.count) upgrades make more versions than a store records (\(Self.maximumVersion))",
                recovery: "Fold old upgrades into fewer steps")
        }
        self.upgrades = upgrades
        currentVersion = upgrades.count + 1
    }

    private static func invalid(_ problem: String, recovery: String) -> RepositoryError {
        RepositoryError.rejected(
            "The migrations of \(Entity.self) are not a chain: \(problem)", recovery: recovery)
    }

    /// Decodes `data`, written by `version` of the entity as JSON, and upgrades it to the
    /// current version.
    ///
    /// A store calls this for each record it reads; a store author or an app repairing a
    /// set-aside record by hand can call it too.
    ///
    /// - Parameters:
    ///   - data: the record as stored: the entity of that version, encoded as JSON.
    ///   - version: the version that wrote it.
    ///   - decoder: the store's decoder (its date and key strategies).
    /// - Returns: the entity at ``currentVersion``.
    /// - Throws: `writtenByNewerVersion` when `version` is above ``currentVersion``;
    ///   `rejected` when it is below 1; what decoding threw when `data` does not decode as
    ///   that version's shape; what an upgrade threw.
    /// - Complexity: one decode and one call of each upgrade from `version` up.
    public func decode(_ data: Data, writtenBy version: Int, using decoder: JSONDecoder) throws -> Entity {
        try decode(data, writtenBy: version, using: .json(makeDecoder: { decoder }))
    }

    /// Decodes `bytes`, written by `version` of the entity with `codec`, and upgrades it to
    /// the current version.
    ///
    /// - Parameters:
    ///   - bytes: the record as stored: the entity of that version, encoded by `codec`.
    ///   - version: the version that wrote it.
    ///   - codec: the codec the store wrote it with (``EntityCodec/binary``, or JSON with the
    ///     store's date and key strategies).
    /// - Returns: the entity at ``currentVersion``.
    /// - Throws: as ``decode(_:writtenBy:using:)-(_,_,JSONDecoder)`` does.
    /// - Complexity: one decode and one call of each upgrade from `version` up.
    public func decode(
        _ bytes: some ContiguousBytes, writtenBy version: Int, using codec: EntityCodec
    ) throws -> Entity {
        try checkReadable(version)
        return try bytes.withUnsafeBytes { bytes in
            if version == currentVersion { return try codec.decode(Entity.self, from: bytes) }
            return try upgrade(try upgrades[version - 1].decode(bytes, codec), from: version)
        }
    }

    /// Decodes a JSON array of records all written by `version`, upgrading each: one
    /// decoder run for the array. Throws as ``decode(_:writtenBy:using:)`` does, for the
    /// first record that fails.
    func decodeArray(_ data: Data, writtenBy version: Int, using decoder: JSONDecoder) throws -> [Entity] {
        try checkReadable(version)
        if version == currentVersion { return try decoder.decode([Entity].self, from: data) }
        return try upgrades[version - 1].decodeArray(data, decoder).map { try upgrade($0, from: version) }
    }

    private func checkReadable(_ version: Int) throws {
        if version > currentVersion {
            throw RepositoryError.writtenByNewerVersion(version, knownVersion: currentVersion, location: nil)
        }
        if version < 1 {
            throw RepositoryError.rejected("A record claims entity version \(version); versions start at 1")
        }
    }

    /// Runs a value of the shape `version` reads through the upgrades up to the entity.
    private func upgrade(_ value: any Sendable, from version: Int) throws -> Entity {
        var value = value
        for upgrade in upgrades[(version - 1)...] { value = try upgrade.convert(value) }
        guard let entity = value as? Entity else {
            // The chain was checked when it was made; this would be a bug of this package.
            throw RepositoryError.rejected("The last upgrade of \(Entity.self) returned \(type(of: value))")
        }
        return entity
    }
}

extension Migrations {
    /// One step of the chain: reads the shape version ``fromVersion`` wrote and returns the
    /// shape of the next version.
    public struct Upgrade: Sendable {
        /// The version whose records this upgrade reads.
        public let fromVersion: Int
        let oldType: ObjectIdentifier
        let newType: ObjectIdentifier
        let oldTypeName: String
        let newTypeName: String
        /// The type this upgrade reads, for a store whose records nest the entity.
        let oldShape: any MigrationShapeOpening
        let decode: @Sendable (UnsafeRawBufferPointer, EntityCodec) throws -> any Sendable
        let decodeArray: @Sendable (Data, JSONDecoder) throws -> [any Sendable]
        let convert: @Sendable (any Sendable) throws -> any Sendable

        /// The upgrade of a record written by `version`, decoded as `Old`, into the next
        /// version's shape.
        ///
        /// ```swift
        /// Migrations<Todo>.Upgrade.upgrade(from: 1) { (old: TodoV1) in
        ///     TodoV2(id: old.id, title: old.title, done: false)
        /// }
        /// ```
        ///
        /// - Parameters:
        ///   - version: the version whose records `convert` reads (1 for the first upgrade).
        ///   - convert: returns the next version's shape; when it throws, the record is one
        ///     that does not decode.
        public static func upgrade<Old: Decodable & Sendable, New: Sendable>(
            from version: Int, _ convert: @escaping @Sendable (Old) throws -> New
        ) -> Upgrade {
            Upgrade(
                fromVersion: version, oldType: ObjectIdentifier(Old.self),
                newType: ObjectIdentifier(New.self),
                oldTypeName: "\(Old.self)", newTypeName: "\(New.self)", oldShape: MigrationShape<Old>(),
                decode: { bytes, codec in try codec.decode(Old.self, from: bytes) },
                decodeArray: { data, decoder in try decoder.decode([Old].self, from: data) },
                convert: { value in
                    guard let old = value as? Old else {
                        throw RepositoryError.rejected(
                            "The upgrade from version \(version) reads \(Old.self), not \(type(of: value))")
                    }
                    return try convert(old)
                })
        }
    }
}
