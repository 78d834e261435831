import Repositories
import RepositoriesTesting

/// A remote whose single saves wait at the next of `gates` before they reach `base`, so a
/// test makes a change on the device while the sync's request is on its way. Every other
/// call goes straight through.
struct GatedSaves<Base: Repository>: Repository {
    typealias Entity = Base.Entity
    typealias ID = Base.ID

    let base: Base
    let gates: Gates

    func fetch(id: ID) async throws -> Entity? { try await base.fetch(id: id) }
    func fetchAll() async throws -> [Entity] { try await base.fetchAll() }
    func fetch(ids: [ID]) async throws -> [Entity] { try await base.fetch(ids: ids) }
    func save(_ entity: Entity) async throws {
        _ = await gates.pass()
        try await base.save(entity)
    }
    func save(contentsOf entities: [Entity]) async throws { try await base.save(contentsOf: entities) }
    func delete(id: ID) async throws { try await base.delete(id: id) }
    func delete(ids: [ID]) async throws { try await base.delete(ids: ids) }
    func deleteAll() async throws { try await base.deleteAll() }
}
