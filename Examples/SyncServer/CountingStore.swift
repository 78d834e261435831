import Repositories
import Synchronization

/// The server's store, counting the writes it applies: every call of
/// `apply(_:idempotencyKey:fingerprint:)` is logged with its key and whether the store
/// applied it or answered it from the key's record, so the story can check at the server,
/// not by what the devices were told, that each change was applied once.
///
/// Everything else passes to `base` unchanged.
struct CountingStore<Base: ChangeFeedRepository & IdempotentWriteRepository>: ChangeFeedRepository,
    IdempotentWriteRepository
{
    /// The stored entity.
    typealias Entity = Base.Entity
    /// The entity's ID.
    typealias ID = Base.ID

    /// The store the writes go to.
    let base: Base
    private let log = Log()

    /// A store that counts the keyed writes `base` applies.
    init(_ base: Base) {
        self.base = base
    }

    /// Every keyed write asked for so far, in order.
    var applications: [KeyedApplication] { log.entries.withLock { $0 } }

    /// Applies `write` through `base`, and logs whether it was applied or answered from its key.
    func apply(_ write: KeyedWrite<Entity, ID>, idempotencyKey: String, fingerprint: String) async throws
        -> KeyedWriteResult<Entity>
    {
        let result = try await base.apply(write, idempotencyKey: idempotencyKey, fingerprint: fingerprint)
        log.entries.withLock {
            $0.append(
                KeyedApplication(key: idempotencyKey, fingerprint: fingerprint, replayed: result.replayed))
        }
        return result
    }

    /// The base's changes after `cursor`.
    func changes(since cursor: SyncCursor?, limit: Int) async throws -> ChangePage<Entity, ID> {
        try await base.changes(since: cursor, limit: limit)
    }

    /// The base's entity under `id`.
    func fetch(id: ID) async throws -> Entity? { try await base.fetch(id: id) }

    /// Every entity of the base.
    func fetchAll() async throws -> [Entity] { try await base.fetchAll() }

    /// Saves `entity` to the base, unlogged: the story's devices write through keyed writes.
    func save(_ entity: Entity) async throws { try await base.save(entity) }

    /// Saves `entities` to the base, unlogged.
    func save(contentsOf entities: [Entity]) async throws { try await base.save(contentsOf: entities) }

    /// Deletes the entity under `id` from the base, unlogged.
    func delete(id: ID) async throws { try await base.delete(id: id) }

    /// Deletes every entity of the base, unlogged.
    func deleteAll() async throws { try await base.deleteAll() }
}

/// One keyed write the server's store was asked for.
struct KeyedApplication: Sendable, Equatable {
    /// The request's `Idempotency-Key`.
    var key: String
    /// What names the request: `PUT /2`, `DELETE /3`.
    var fingerprint: String
    /// Whether the store answered from the key's record, writing nothing.
    var replayed: Bool
}

/// The log, shared by every copy of the store.
private final class Log: Sendable {
    let entries = Mutex<[KeyedApplication]>([])
}
