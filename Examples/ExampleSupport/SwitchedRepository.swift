import Repositories

/// A remote behind a ``NetworkSwitch``: while the switch is on, each call waits `latency`
/// (a network round trip) and reaches `base`; while it is off, each call throws
/// `RepositoryError` `unavailable` at once and `base` is not touched.
public struct SwitchedRepository<Base: Repository>: Repository {
    /// The stored entity.
    public typealias Entity = Base.Entity
    /// The entity's ID.
    public typealias ID = Base.ID

    /// The remote the switch guards.
    public let base: Base
    /// The switch, shared with the example.
    public let network: NetworkSwitch
    /// How long each request takes while online.
    public let latency: Duration
    /// Names the remote in the `unavailable` error, such as "the products API".
    public let name: String

    /// A remote behind `network`.
    public init(_ base: Base, network: NetworkSwitch, latency: Duration = .zero, name: String) {
        self.base = base
        self.network = network
        self.latency = latency
        self.name = name
    }

    private func request() async throws {
        guard network.admit() else {
            throw RepositoryError.unavailable("\(name) cannot be reached (the network is switched off)")
        }
        if latency > .zero { try await Task.sleep(for: latency) }
    }

    /// Reads one entity from the remote.
    public func fetch(id: ID) async throws -> Entity? {
        try await request()
        return try await base.fetch(id: id)
    }

    /// Reads every entity from the remote.
    public func fetchAll() async throws -> [Entity] {
        try await request()
        return try await base.fetchAll()
    }

    /// Reads the entities stored under `ids`, in one request.
    public func fetch(ids: [ID]) async throws -> [Entity] {
        try await request()
        return try await base.fetch(ids: ids)
    }

    /// Runs `query` on the remote, in one request.
    public func fetch(_ query: Query<Entity>) async throws -> [Entity] {
        try await request()
        return try await base.fetch(query)
    }

    /// Counts the remote's entities.
    public func count() async throws -> Int {
        try await request()
        return try await base.count()
    }

    /// Writes one entity to the remote.
    public func save(_ entity: Entity) async throws {
        try await request()
        try await base.save(entity)
    }

    /// Writes a batch to the remote, in one request.
    public func save(contentsOf entities: [Entity]) async throws {
        try await request()
        try await base.save(contentsOf: entities)
    }

    /// Deletes one entity on the remote.
    public func delete(id: ID) async throws {
        try await request()
        try await base.delete(id: id)
    }

    /// Deletes the entities stored under `ids`, in one request.
    public func delete(ids: [ID]) async throws {
        try await request()
        try await base.delete(ids: ids)
    }

    /// Deletes every entity on the remote.
    public func deleteAll() async throws {
        try await request()
        try await base.deleteAll()
    }
}
