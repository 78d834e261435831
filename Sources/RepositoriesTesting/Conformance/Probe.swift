import Repositories

/// The repository under test, as one law sees it: every call goes through here, so a
/// broken law can show the operations that led to it.
///
/// Used by one task at a time.
final class Probe<Repo: Repository> where Repo.Entity: Equatable {
    typealias Entity = Repo.Entity
    typealias ID = Repo.ID

    private(set) var repository: Repo
    let catalog: EntityCatalog<Entity>
    let ordered: Bool

    init(_ repository: Repo, catalog: EntityCatalog<Entity>, ordered: Bool) {
        self.repository = repository
        self.catalog = catalog
        self.ordered = ordered
    }

    var operations: [String] { steps.map(render) }

    func entity(_ index: Int, _ revision: Int = 0) -> Entity { catalog.entity(index, revision) }

    func entities(_ indexes: [Int], revision: Int = 0) -> [Entity] { indexes.map { entity($0, revision) } }

    // MARK: Traced operations

    /// A call on the repository, kept as values and described only when a failure needs it,
    /// so long runs stay cheap.
    enum Call {
        case save(Entity)
        case saveBatch([Entity])
        case fetch(ID)
        case fetchAll
        case fetchIDs([ID])
        case query(String)
        case countQuery(String)
        case count
        case delete(ID)
        case deleteIDs([ID])
        case deleteAll
        case require(ID)
        case reopen
        case note(String)
    }

    enum Outcome {
        case done
        case entity(Entity?)
        case entities([Entity])
        case number(Int)
        case failed(any Error)
    }

    private var steps: [(call: Call, outcome: Outcome)] = []

    private func traced<T>(_ call: Call, _ body: () async throws -> T) async throws -> T {
        do {
            let value = try await body()
            let outcome: Outcome =
                switch value {
                case let list as [Entity]: .entities(list)
                case let number as Int: .number(number)
                case let one as Entity?: .entity(one)
                default: .done
                }
            steps.append((call, outcome))
            return value
        } catch {
            steps.append((call, .failed(error)))
            throw error
        }
    }

    private func render(_ step: (call: Call, outcome: Outcome)) -> String {
        let call: String =
            switch step.call {
            case .save(let entity): "save(\(catalog.describe(entity)))"
            case .saveBatch(let batch): "save(contentsOf: \(catalog.describe(batch)))"
            case .fetch(let id): "fetch(id: \(catalog.describe(id: id)))"
            case .fetchAll: "fetchAll()"
            case .fetchIDs(let ids): "fetch(ids: \(catalog.describe(ids: ids)))"
            case .query(let name): "fetch(\(name))"
            case .countQuery(let name): "count(\(name))"
            case .count: "count()"
            case .delete(let id): "delete(id: \(catalog.describe(id: id)))"
            case .deleteIDs(let ids): "delete(ids: \(catalog.describe(ids: ids)))"
            case .deleteAll: "deleteAll()"
            case .require(let id): "require(id: \(catalog.describe(id: id)))"
            case .reopen: "— close and reopen —"
            case .note(let text): text
            }
        switch step.outcome {
        case .done: return call
        case .entity(let entity): return "\(call) → \(catalog.describe(entity))"
        case .entities(let list): return "\(call) → \(catalog.describe(list))"
        case .number(let number): return "\(call) → \(number)"
        case .failed(let error): return "\(call) threw \(error)"
        }
    }

    func save(_ entity: Entity) async throws {
        try await traced(.save(entity)) { try await repository.save(entity) }
    }

    func save(_ index: Int, _ revision: Int = 0) async throws { try await save(entity(index, revision)) }

    func save(contentsOf batch: [Entity]) async throws {
        try await traced(.saveBatch(batch)) { try await repository.save(contentsOf: batch) }
    }

    func fetch(_ index: Int) async throws -> Entity? { try await fetch(id: catalog.id(index)) }

    func fetch(id: ID) async throws -> Entity? {
        try await traced(.fetch(id)) { try await repository.fetch(id: id) }
    }

    func fetchAll() async throws -> [Entity] {
        try await traced(.fetchAll) { try await repository.fetchAll() }
    }

    func fetch(ids: [ID]) async throws -> [Entity] {
        try await traced(.fetchIDs(ids)) { try await repository.fetch(ids: ids) }
    }

    func fetch(_ query: Query<Entity>, named name: String) async throws -> [Entity] {
        try await traced(.query(name)) { try await repository.fetch(query) }
    }

    func count(_ query: Query<Entity>, named name: String) async throws -> Int {
        try await traced(.countQuery(name)) { try await repository.count(query) }
    }

    func count() async throws -> Int {
        try await traced(.count) { try await repository.count() }
    }

    func delete(_ index: Int) async throws { try await delete(id: catalog.id(index)) }

    func delete(id: ID) async throws {
        try await traced(.delete(id)) { try await repository.delete(id: id) }
    }

    func delete(ids: [ID]) async throws {
        try await traced(.deleteIDs(ids)) { try await repository.delete(ids: ids) }
    }

    func deleteAll() async throws {
        try await traced(.deleteAll) { try await repository.deleteAll() }
    }

    func require(id: ID) async throws -> Entity {
        try await traced(.require(id)) { try await repository.require(id: id) }
    }

    /// Swaps in the reopened repository.
    func reopen(with reopen: @Sendable (Repo) async throws -> Repo) async throws {
        let current = repository
        repository = try await traced(.reopen) { try await reopen(current) }
    }

    /// Records something that happened outside the repository's operations.
    func note(_ text: String) {
        steps.append((.note(text), .done))
    }

    // MARK: Expectations

    /// Throws ``LawBroken`` with `message` unless `condition` holds.
    func expect(_ condition: Bool, _ message: @autoclosure () -> String) throws {
        if !condition { throw LawBroken(message()) }
    }

    /// Checks `fetchAll()` returns `expected` (in order, unless the store declared it keeps none).
    func expectAll(_ expected: [Entity], _ context: @autoclosure () -> String = "") async throws {
        let actual = try await fetchAll()
        try expectSame(actual, expected, what: "fetchAll()", context())
    }

    /// Checks two lists hold the same entities, in the same order when ordering is checked.
    func expectSame(_ actual: [Entity], _ expected: [Entity], what: String, _ context: String = "") throws {
        let same = ordered ? actual == expected : sameMembers(actual, expected)
        if same { return }
        let suffix = context.isEmpty ? "" : " \(context)"
        throw LawBroken(
            "\(what) returned \(catalog.describe(actual)), expected \(catalog.describe(expected))\(suffix)")
    }

    func sameMembers(_ actual: [Entity], _ expected: [Entity]) -> Bool {
        guard actual.count == expected.count else { return false }
        var remaining = expected
        for entity in actual {
            guard let position = remaining.firstIndex(of: entity) else { return false }
            remaining.remove(at: position)
        }
        return true
    }
}
