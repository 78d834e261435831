import Repositories
import Synchronization

/// What happened in one sequence, in order: the changes devices acknowledged, the writes
/// the remote acknowledged, the merges the conflict policy made, and the copies devices read.
final class _SyncLog<Entity: Identifiable & Sendable>: Sendable where Entity.ID: Sendable {
    enum Kind: Sendable {
        /// A device's write returned: the change is acknowledged to the app.
        case acknowledged
        /// A write call to the remote returned: the remote acknowledged the change.
        case landed
        /// The merge closure returned this entity on the device.
        case merged
        /// The device read the remote's copy of one ID (`nil`: it had none), so a change
        /// of the device that matches it was in effect on the remote then.
        case observed
    }

    struct Event: Sendable {
        var kind: Kind
        var device: Int
        var id: Entity.ID
        /// The entity saved, or `nil` for a delete.
        var value: Entity?
    }

    private let state = Mutex<[Event]>([])

    var events: [Event] { state.withLock { $0 } }

    func append(_ kind: Kind, device: Int, _ changes: [(id: Entity.ID, value: Entity?)]) {
        state.withLock { events in
            events += changes.map { Event(kind: kind, device: device, id: $0.id, value: $0.value) }
        }
    }
}

/// The remote as one device reaches it: a network that can be switched off, and a record
/// of every write the remote acknowledged.
final class _SyncLink<Base: Repository>: Repository, Sendable {
    typealias Entity = Base.Entity
    typealias ID = Base.ID

    let base: Base
    let device: Int
    let log: _SyncLog<Entity>
    private let connected = Mutex(true)

    init(_ base: Base, device: Int, log: _SyncLog<Entity>) {
        self.base = base
        self.device = device
        self.log = log
    }

    var online: Bool {
        get { connected.withLock { $0 } }
        set { connected.withLock { $0 = newValue } }
    }

    private func reach() throws {
        guard online else {
            throw RepositoryError.unavailable("SyncConformance: device \(device + 1) is offline")
        }
    }

    private func write(_ changes: [(id: ID, value: Entity?)], _ body: () async throws -> Void) async throws {
        try reach()
        try await body()
        log.append(.landed, device: device, changes)
    }

    func fetch(id: ID) async throws -> Entity? {
        try reach()
        let copy = try await base.fetch(id: id)
        log.append(.observed, device: device, [(id, copy)])
        return copy
    }
    func fetchAll() async throws -> [Entity] {
        try reach()
        return try await base.fetchAll()
    }
    func fetch(ids: [ID]) async throws -> [Entity] {
        try reach()
        let copies = try await base.fetch(ids: ids)
        let byID = Dictionary(copies.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
        log.append(.observed, device: device, ids.map { ($0, byID[$0]) })
        return copies
    }
    func fetch(_ query: Query<Entity>) async throws -> [Entity] {
        try reach()
        return try await base.fetch(query)
    }
    func count() async throws -> Int {
        try reach()
        return try await base.count()
    }
    func save(_ entity: Entity) async throws {
        try await write([(entity.id, entity)]) { try await base.save(entity) }
    }
    func save(contentsOf entities: [Entity]) async throws {
        try await write(entities.map { ($0.id, $0) }) { try await base.save(contentsOf: entities) }
    }
    func delete(id: ID) async throws {
        try await write([(id, nil)]) { try await base.delete(id: id) }
    }
    func delete(ids: [ID]) async throws {
        try await write(ids.map { ($0, nil) }) { try await base.delete(ids: ids) }
    }
    func deleteAll() async throws {
        let ids = try await base.fetchAll().map(\.id)
        try await write(ids.map { ($0, nil) }) { try await base.deleteAll() }
    }
}
