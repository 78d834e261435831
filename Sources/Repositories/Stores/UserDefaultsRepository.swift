import Foundation
import Synchronization

/// A repository that keeps its whole collection as one JSON value under a key of
/// `UserDefaults`: the articles' store, with typed errors and without their bugs.
///
/// ```swift
/// let people = UserDefaultsRepository<Person>(key: "people")
/// try await people.save(Person(id: UUID(), name: "Aziz"))
/// ```
///
/// Fit for small collections (settings, a short list): every write decodes the
/// collection, changes it and writes it back whole, so a save costs O(*n*). For more than a
/// few hundred entities use `FileRepository` or `SQLiteRepository`.
///
/// - Errors: a value under the key that does not decode throws `decodingFailed` naming the
///   key and the element, never an empty list; an entity that cannot be encoded throws
///   `encodingFailed` and the stored value is left as it was.
/// - Concurrency: writes to one key through any `UserDefaultsRepository` in the process are
///   serialized, so two instances over one key never lose each other's writes. The
///   repositories treat their key as their own: once one has read or written it, the
///   process's repositories keep the value they last saw and do not see writes made to the
///   key directly through `UserDefaults`, nor by another process.
/// - Durability: `UserDefaults` writes to disk in the background; a value set just before
///   the process is killed may be lost. Use `FileRepository` for data that must survive.
/// - Versions: with `migrations` at version 2 or later (see ``Migrations``), the value is
///   stamped with the version that wrote it; an older value (a bare JSON array, as every
///   release before versions wrote, reads as version 1) is upgraded on first read and
///   written back once, in one `set`; a value from a newer version throws
///   `writtenByNewerVersion` and is left as it was. At version 1 the value stays the bare
///   array older releases read.
public struct UserDefaultsRepository<Entity: Codable & Identifiable & Sendable>: Repository
where Entity.ID: Sendable {
    /// The type that identifies an entity.
    public typealias ID = Entity.ID

    /// The key the collection is stored under.
    public let key: String
    /// The entity's version and the upgrades from older ones.
    public let migrations: Migrations<Entity>
    private let slot: StoredValue

    /// Creates a repository over the collection stored under `key` in `defaults`.
    ///
    /// - Parameters:
    ///   - key: the `UserDefaults` key the collection is stored under.
    ///   - defaults: where the key lives.
    ///   - migrations: the entity's version and the upgrades from older ones; version 1 by
    ///     default.
    public init(
        key: String, defaults: UserDefaults = .standard, migrations: Migrations<Entity> = Migrations()
    ) {
        self.key = key
        self.migrations = migrations
        self.slot = StoredValue.slot(for: key, in: defaults)
    }

    /// - Complexity: O(*n*): the collection is decoded.
    public func fetch(id: ID) async throws -> Entity? {
        try load().first { $0.id == id }
    }

    /// - Complexity: O(*n*).
    public func fetchAll() async throws -> [Entity] {
        try load()
    }

    /// - Complexity: O(*n*): the collection is decoded and written back whole.
    public func save(_ entity: Entity) async throws {
        try await save(contentsOf: [entity])
    }

    /// Writes the collection back once, with every entity of the batch or none.
    public func save(contentsOf entities: [Entity]) async throws {
        try update { stored in
            var positions = Dictionary(stored.enumerated().map { ($1.id, $0) }) { first, _ in first }
            for entity in entities {
                if let position = positions[entity.id] {
                    stored[position] = entity
                } else {
                    positions[entity.id] = stored.count
                    stored.append(entity)
                }
            }
        }
    }

    /// - Complexity: O(*n*).
    public func delete(id: ID) async throws {
        try await delete(ids: [id])
    }

    /// Removes the key's value.
    ///
    /// - Throws: `writtenByNewerVersion` when a newer version of the app wrote the value,
    ///   which is then left as it was: a downgrade never destroys it.
    public func deleteAll() async throws {
        if let data = try slot.read(), case let value = try StampedCollection(data, key: key),
            value.version > migrations.currentVersion
        {
            _ = try decode(value)  // throws writtenByNewerVersion, naming the key
        }
        slot.removeValue()
    }

    /// Writes the collection back once, without the IDs.
    public func delete(ids: [ID]) async throws {
        let doomed = Set(ids)
        try update { stored in stored.removeAll { doomed.contains($0.id) } }
    }

    /// - Complexity: O(*n*).
    public func count() async throws -> Int {
        try load().count
    }

    // MARK: Storage

    private func load() throws -> [Entity] {
        guard let data = try slot.read() else { return [] }
        let value = try StampedCollection(data, key: key)
        guard value.version < migrations.currentVersion else { return try decode(value) }
        // Written by an older version: upgrade, and write the upgrade back once.
        var upgraded: [Entity] = []
        try update { upgraded = $0 }
        return upgraded
    }

    private func decode(_ value: StampedCollection) throws -> [Entity] {
        do {
            return try migrations.decodeArray(value.entities, writtenBy: value.version, using: JSONDecoder())
        } catch let error as RepositoryError where error.code == .writtenByNewerVersion {
            throw RepositoryError.writtenByNewerVersion(
                value.version, knownVersion: migrations.currentVersion, location: "UserDefaults",
                record: "the value under key \"\(key)\"")
        } catch {
            let fix =
                value.version < migrations.currentVersion
                ? "Check the upgrade from version \(value.version) in the repository's Migrations: it cannot read this value"
                : "If the model changed, raise the entity's version with an upgrade in the repository's Migrations (Migrations<\(Entity.self)>)"
            throw RepositoryError.decodingFailed(
                record: Self.describe(error, key: key)
                    + (migrations.currentVersion > 1 ? ", written by entity version \(value.version)" : ""),
                location: "UserDefaults", underlying: error,
                recovery: "\(fix). The stored value was left as it was")
        }
    }

    private func update(_ change: (inout [Entity]) -> Void) throws {
        try slot.update { current in
            var stored = try current.map { try decode(try StampedCollection($0, key: key)) } ?? []
            change(&stored)
            let entities: Data
            do {
                entities = try JSONEncoder().encode(stored)
            } catch {
                throw RepositoryError.encodingFailed(id: Self.failingID(error, in: stored), underlying: error)
            }
            return StampedCollection.encode(entities, version: migrations.currentVersion)
        }
    }

    /// Names the element a decoding error points at, such as `element 3 of key "todos"`.
    private static func describe(_ error: any Error, key: String) -> String {
        guard let context = (error as? DecodingError)?.context, let first = context.codingPath.first?.intValue
        else {
            return "the value under key \"\(key)\""
        }
        return "element \(first) of key \"\(key)\""
    }

    private static func failingID(_ error: any Error, in entities: [Entity]) -> String? {
        guard case .invalidValue(_, let context) = error as? EncodingError,
            let position = context.codingPath.first?.intValue, entities.indices.contains(position)
        else { return nil }
        return "\(entities[position].id)"
    }
}

/// The stored value: the entities' JSON array and the entity version that wrote it.
///
/// Version 1 is stored as the bare array, as every release before versions wrote it;
/// later versions as `{"version":N,"entities":[…]}`, written and read byte for byte here,
/// so the array passes to the decoder exactly as it was encoded.
private struct StampedCollection {
    private static let prefix = Array(#"{"version":"#.utf8)
    private static let separator = Array(#","entities":"#.utf8)

    var version: Int
    var entities: Data

    /// Splits a stored value.
    ///
    /// - Throws: `decodingFailed` naming the key when the value is neither form.
    init(_ data: Data, key: String) throws {
        let bytes = Array(data)
        guard bytes.starts(with: Self.prefix) else {
            (version, entities) = (1, data)
            return
        }
        var position = Self.prefix.count
        var number = 0
        // At most 8 digits: a version fits in 24 bits, and the number cannot overflow.
        while position < bytes.count, position - Self.prefix.count < 8,
            (0x30...0x39).contains(bytes[position])
        {
            number = number * 10 + Int(bytes[position] - 0x30)
            position += 1
        }
        guard number >= 1, bytes[position...].starts(with: Self.separator), bytes.last == 0x7D else {
            throw RepositoryError.decodingFailed(
                record: "the value under key \"\(key)\"", location: "UserDefaults",
                underlying: RepositoryError.rejected(
                    "The value is not a JSON array, nor the {\"version\", \"entities\"} object this repository writes"
                ))
        }
        version = number
        entities = Data(bytes[(position + Self.separator.count)..<(bytes.count - 1)])
    }

    /// The value to store for `entities` (a JSON array) written by `version`.
    static func encode(_ entities: Data, version: Int) -> Data {
        guard version > 1 else { return entities }
        return Data(prefix + Array(String(version).utf8) + separator) + entities + Data([0x7D])
    }
}

extension DecodingError {
    fileprivate var context: Context? {
        switch self {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context),
            .dataCorrupted(let context):
            context
        @unknown default: nil
        }
    }
}

/// The value under one key of one `UserDefaults`, shared by every `UserDefaultsRepository`
/// over that key in the process: one lock, so read-modify-write cycles never interleave, and
/// the value as this process last read or wrote it.
///
/// The copy is what makes writes safe: on Linux, `UserDefaults` can hand back an older value
/// for a moment after a write while it flushes its file, and a read-modify-write built on
/// that older value would drop the write before it. Once a repository has read or written
/// the key, this process's repositories read the key from here, not from `UserDefaults`.
private final class StoredValue: Sendable {
    private struct Slot: Hashable {
        var defaults: ObjectIdentifier
        var key: String
    }

    /// Kept for the life of the process: each holds its `UserDefaults`, so an identifier is
    /// never reused for another instance while its entry exists.
    private static let slots = Mutex<[Slot: StoredValue]>([:])

    private let defaults: DefaultsBox
    private let key: String
    /// `nil` until first read; then the data, or `.some(nil)` when the key holds nothing.
    private let copy = Mutex<Data??>(nil)

    private init(defaults: UserDefaults, key: String) {
        self.defaults = DefaultsBox(defaults)
        self.key = key
    }

    static func slot(for key: String, in defaults: UserDefaults) -> StoredValue {
        slots.withLock { slots in
            let slot = Slot(defaults: ObjectIdentifier(defaults), key: key)
            if let existing = slots[slot] { return existing }
            let value = StoredValue(defaults: defaults, key: key)
            slots[slot] = value
            return value
        }
    }

    /// The stored data, or `nil` when the key holds nothing.
    ///
    /// - Throws: `decodingFailed` when the key holds something other than data.
    func read() throws -> Data? {
        try copy.withLock { try current(&$0) }
    }

    /// Replaces the stored data with what `change` makes of it, under the key's lock.
    func update(_ change: (Data?) throws -> Data) throws {
        try copy.withLock { cached in
            let next = try change(try current(&cached))
            defaults.value.set(next, forKey: key)
            cached = .some(next)
        }
    }

    func removeValue() {
        copy.withLock { cached in
            defaults.value.removeObject(forKey: key)
            cached = .some(nil)
        }
    }

    private func current(_ cached: inout Data??) throws -> Data? {
        if let known = cached { return known }
        guard let value = defaults.value.object(forKey: key) else {
            cached = .some(nil)
            return nil
        }
        guard let data = value as? Data else {
            throw RepositoryError.decodingFailed(
                record: "the value under key \"\(key)\"", location: "UserDefaults",
                underlying: RepositoryError.rejected(
                    "The value is a \(type(of: value)), not the JSON data this repository writes"))
        }
        cached = .some(data)
        return data
    }
}

/// `UserDefaults` is documented as thread-safe; this box says so to the compiler where
/// the platform's declaration does not.
private final class DefaultsBox: @unchecked Sendable {
    let value: UserDefaults
    init(_ value: UserDefaults) { self.value = value }
}
