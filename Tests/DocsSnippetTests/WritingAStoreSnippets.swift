import Foundation
import Repositories
import RepositoriesTesting
import Testing

// Docs/Testing.md, "Writing your own store": the complete store and its conformance test.

/// Entities kept in one JSON file, rewritten whole at every write.
///
/// Small enough to read in a minute, and it passes every law of the conformance suite: reads
/// are served from memory, a write changes the memory only once the file holds it, and the
/// file is replaced atomically, so a crash leaves the old file or the new.
public actor JSONFileStore<Entity: Codable & Identifiable & Sendable>: Repository
where Entity.ID: Codable & Sendable {
    /// The file the entities are kept in.
    public let fileURL: URL
    private var entities: [Entity] = []  // in order of first insertion
    private var positions: [Entity.ID: Int] = [:]  // where each ID sits in `entities`

    /// Opens the store at `fileURL`, reading what an earlier run saved there.
    ///
    /// - Throws: `decodingFailed` naming the file when it holds something else.
    public init(fileURL: URL) throws {
        self.fileURL = fileURL
        guard FileManager.default.fileExists(atPath: fileURL.path) else { return }
        do {
            entities = try JSONDecoder().decode([Entity].self, from: Data(contentsOf: fileURL))
        } catch {
            throw RepositoryError.decodingFailed(
                record: "the whole file", location: fileURL.path, underlying: error)
        }
        for (index, entity) in entities.enumerated() { positions[entity.id] = index }
    }

    /// The entity stored under `id`, from memory.
    public func fetch(id: Entity.ID) -> Entity? {
        positions[id].map { entities[$0] }
    }

    /// Every entity, in order of first insertion.
    public func fetchAll() -> [Entity] {
        entities
    }

    /// How many entities there are, without copying them (overrides the default).
    public func count() -> Int {
        entities.count
    }

    /// Saves one entity, as a batch of one.
    public func save(_ entity: Entity) throws {
        try save(contentsOf: [entity])
    }

    /// Saves the batch whole or not at all: the new state is built aside, written, then kept.
    public func save(contentsOf batch: [Entity]) throws {
        var newEntities = entities
        var newPositions = positions
        for entity in batch {
            if let index = newPositions[entity.id] {
                newEntities[index] = entity  // a replaced entity keeps its place
            } else {
                newPositions[entity.id] = newEntities.count
                newEntities.append(entity)
            }
        }
        try write(newEntities, naming: batch)
        (entities, positions) = (newEntities, newPositions)
    }

    /// Deletes one ID, as a list of one.
    public func delete(id: Entity.ID) throws {
        try delete(ids: [id])
    }

    /// Deletes the entities of `ids` in one write (overrides the default); deleting an
    /// absent ID succeeds, and writes nothing.
    public func delete(ids: [Entity.ID]) throws {
        let gone = Set(ids)
        let kept = entities.filter { !gone.contains($0.id) }
        guard kept.count < entities.count else { return }
        try write(kept, naming: [])
        entities = kept
        positions = [:]
        for (index, entity) in kept.enumerated() { positions[entity.id] = index }
    }

    /// Leaves an empty file.
    public func deleteAll() throws {
        try write([], naming: [])
        (entities, positions) = ([], [:])
    }

    /// Replaces the file with `all`.
    ///
    /// - Throws: `encodingFailed` naming the entity of `batch` that cannot be encoded; the
    ///   error of the write (disk full, no permission) as it came.
    private func write(_ all: [Entity], naming batch: [Entity]) throws {
        let data: Data
        do {
            data = try JSONEncoder().encode(all)
        } catch {
            let culprit = batch.first { (try? JSONEncoder().encode($0)) == nil }
            throw RepositoryError.encodingFailed(id: culprit.map { "\($0.id)" }, underlying: error)
        }
        try data.write(to: fileURL, options: .atomic)
    }
}

@Suite struct WritingAStoreSnippets {
    @Test func jsonFileStoreConforms() async throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "JSONFileStore-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        var options = ConformanceOptions<JSONFileStore<ConformanceEntity>>()
        options.reopen = { store in try JSONFileStore(fileURL: store.fileURL) }  // turns on durability
        options.tearDown = { store in try FileManager.default.removeItem(at: store.fileURL) }
        options.concurrentTasks = 4  // every write rewrites the file: a lighter load
        options.operationsPerTask = 200
        let suite = RepositoryConformance(
            options: options,
            makeRepository: { try JSONFileStore(fileURL: directory.appending(path: "\(UUID()).json")) })
        let report = try await suite.run()
        // Only the migration area is skipped: this store takes no `migrations:`.
        #expect(report.skipped.allSatisfy { $0.law.area == .migrations }, "\(report)")
        #expect(report.passed.count == 27, "\(report)")
    }

    @Test func aFileOfAnotherShapeIsRefusedNamingIt() throws {
        let file = FileManager.default.temporaryDirectory.appending(path: "JSONFileStore-\(UUID()).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("{\"not\": \"an array\"}".utf8).write(to: file)
        let error = try #require(throws: RepositoryError.self) {
            try JSONFileStore<ConformanceEntity>(fileURL: file)
        }
        #expect(error.code == .decodingFailed)
        #expect(error.location == file.path)
    }
}
