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
///   serialized, so two instances over one key never lose each other's writes. Another process writing
///   the same key is not coordinated with.
/// - Durability: `UserDefaults` writes to disk in the background; a value set just before
///   the process is killed may be lost. Use `FileRepository` for data that must survive.
public struct UserDefaultsRepository<Entity: Codable & Identifiable & Sendable>: Repository
where Entity.ID: Sendable {
    /// The type that identifies an entity.
    public typealias ID = Entity.ID

    /// The key the collection is stored under.
    public let key: String
    private let defaults: DefaultsBox
    private let lock: KeyLock

    /// Creates a repository over the collection stored under `key` in `defaults`.
    public init(key: String, defaults: UserDefaults = .standard) {
        self.key = key
        self.defaults = DefaultsBox(defaults)
        self.lock = KeyLock.forKey(key)
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
        lock.mutex.withLock { _ in defaults.value.removeObject(forKey: key) }
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
        guard let value = defaults.value.object(forKey: key) else { return [] }
        guard let data = value as? Data else {
            throw RepositoryError.decodingFailed(
                record: "the value under key \"\(key)\"", location: "UserDefaults",
                underlying: RepositoryError.rejected(
                    "The value is a \(type(of: value)), not the JSON data this repository writes"))
        }
        do {
            return try JSONDecoder().decode([Entity].self, from: data)
        } catch {
            throw RepositoryError.decodingFailed(
                record: Self.describe(error, key: key), location: "UserDefaults", underlying: error)
        }
    }

    private func update(_ change: (inout [Entity]) -> Void) throws {
        try lock.mutex.withLock { _ in
            var stored = try load()
            change(&stored)
            let data: Data
            do {
                data = try JSONEncoder().encode(stored)
            } catch {
                throw RepositoryError.encodingFailed(id: Self.failingID(error, in: stored), underlying: error)
            }
            defaults.value.set(data, forKey: key)
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

/// One lock per key, shared by every `UserDefaultsRepository` in the process, so
/// read-modify-write cycles on one key never interleave while other keys go on.
private let userDefaultsLocks = Mutex<[String: KeyLock]>([:])

private final class KeyLock: Sendable {
    let mutex = Mutex(())

    static func forKey(_ key: String) -> KeyLock {
        userDefaultsLocks.withLock { locks in
            if let lock = locks[key] { return lock }
            let lock = KeyLock()
            locks[key] = lock
            return lock
        }
    }
}

/// `UserDefaults` is documented as thread-safe; this box says so to the compiler where
/// the platform's declaration does not.
private final class DefaultsBox: @unchecked Sendable {
    let value: UserDefaults
    init(_ value: UserDefaults) { self.value = value }
}
