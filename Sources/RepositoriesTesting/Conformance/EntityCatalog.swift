import Repositories

/// Maps the suite's indexes to the author's entities and back, and names entities in
/// failure messages as `⟨#index rRevision⟩`.
struct EntityCatalog<Entity: Identifiable & Equatable & Sendable>: Sendable where Entity.ID: Sendable {
    /// Revisions the suite draws from; describing an entity searches this range.
    static var revisionLimit: Int { 64 }

    let makeEntity: @Sendable (Int, Int) -> Entity
    let makeUnencodable: (@Sendable (Int) -> Entity)?
    private let ids: [Entity.ID]
    private let indexByID: [Entity.ID: Int]

    /// Builds the catalog for indexes `0..<indexLimit`.
    ///
    /// - Throws: ``LawBroken`` when two indexes give one ID (a `makeEntity` that does not
    ///   fix the ID by the index), when two revisions give equal entities, or when one
    ///   index and revision give different entities on two calls.
    init(
        indexLimit: Int, makeEntity: @escaping @Sendable (Int, Int) -> Entity,
        makeUnencodable: (@Sendable (Int) -> Entity)?
    ) throws {
        self.makeEntity = makeEntity
        self.makeUnencodable = makeUnencodable
        var ids: [Entity.ID] = []
        var indexByID: [Entity.ID: Int] = [:]
        for index in 0..<indexLimit {
            let id = makeEntity(index, 0).id
            if let other = indexByID.updateValue(index, forKey: id) {
                throw LawBroken(
                    "makeEntity(\(other), 0) and makeEntity(\(index), 0) both have ID \(id); each index must give its own ID"
                )
            }
            ids.append(id)
        }
        self.ids = ids
        self.indexByID = indexByID
        // Laws about replacement pass vacuously if revisions are equal; say so instead.
        for index in 0..<min(3, indexLimit) {
            guard makeEntity(index, 0) != makeEntity(index, 1) else {
                throw LawBroken(
                    "makeEntity(\(index), 0) equals makeEntity(\(index), 1); the content must change with the revision"
                )
            }
            guard makeEntity(index, 1) == makeEntity(index, 1) else {
                throw LawBroken(
                    "makeEntity(\(index), 1) differs between two calls; it must return the same entity for the same index and revision"
                )
            }
        }
    }

    func id(_ index: Int) -> Entity.ID { ids[index] }

    func index(of id: Entity.ID) -> Int? { indexByID[id] }

    func entity(_ index: Int, _ revision: Int) -> Entity { makeEntity(index, revision) }

    func describe(_ entity: Entity) -> String {
        guard let index = indexByID[entity.id] else { return "⟨id \(entity.id), not made by makeEntity⟩" }
        if let revision = (0..<Self.revisionLimit).first(where: { makeEntity(index, $0) == entity }) {
            return "⟨#\(index) r\(revision)⟩"
        }
        if let makeUnencodable, makeUnencodable(index) == entity { return "⟨#\(index) unencodable⟩" }
        return "⟨#\(index) with content of no revision⟩"
    }

    func describe(_ entity: Entity?) -> String {
        entity.map { describe($0) } ?? "nil"
    }

    func describe(_ entities: [Entity], limit: Int = 16) -> String {
        var parts = entities.prefix(limit).map { describe($0) }
        if entities.count > limit { parts.append("… \(entities.count - limit) more") }
        return "[" + parts.joined(separator: ", ") + "]"
    }

    func describe(id: Entity.ID) -> String {
        indexByID[id].map { "#\($0)" } ?? "\(id)"
    }

    func describe(ids: [Entity.ID]) -> String {
        "[" + ids.map { id in indexByID[id].map { "#\($0)" } ?? "\(id)" }.joined(separator: ", ") + "]"
    }
}

/// Thrown inside a law's body when the law does not hold.
struct LawBroken: Error {
    var message: String
    init(_ message: String) { self.message = message }
}
