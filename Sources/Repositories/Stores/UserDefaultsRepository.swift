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
public struct UserDefaultsRepository<Entity: Codable & Identifiable & Sendable>: Repository
where Entity.ID: Sendable {
    /// The type that identifies an entity.
    public typealias ID = Entity.ID

    /// The key the collection is stored under.
    public let key: String
    private let slot: StoredValue

    /// Creates a repository over the collection stored under `key` in `defaults`.
    public init(key: String, defaults: UserDefaults = .standard) {
        self.key = key
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
    public func deleteAll() async throws {
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
        try decode(try slot.read())
    }

    private func decode(_ data: Data?) throws -> [Entity] {
        guard let data else { return [] }
        do {
            return try JSONDecoder().decode([Entity].self, from: data)
        } catch {
            throw RepositoryError.decodingFailed(
                record: Self.describe(error, key: key), location: "UserDefaults", underlying: error)
        }
    }

    private func update(_ change: (inout [Entity]) -> Void) throws {
        try slot.update { current in
            var stored = try decode(current)
            change(&stored)
            do {
                return try JSONEncoder().encode(stored)
            } catch {
                throw RepositoryError.encodingFailed(id: Self.failingID(error, in: stored), underlying: error)
            }
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
