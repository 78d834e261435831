import Foundation
import Repositories
import RepositoriesTestSupport
import RepositoriesTesting
import Testing

/// `FileRepository` keeps every law of `Repository`, across close and reopen, with Int,
/// String and UUID IDs.
@Suite struct FileRepositoryConformanceTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    func suite<E: Codable & Identifiable & Sendable & Equatable>(
        _ type: E.Type, durability: FileRepository<E>.Durability = .everyWrite,
        codec: EntityCodec.Identifier = .binary, makeEntity: @escaping @Sendable (Int, Int) -> E
    ) -> RepositoryConformance<FileRepository<E>> where E.ID: Codable & Sendable {
        let directory = self.directory
        let options = FileRepository<E>.Options(durability: durability, codec: codec)
        var conformance = ConformanceOptions<FileRepository<E>>()
        conformance.reopen = { store in
            try await store.close()
            return try await FileRepository(fileURL: store.fileURL, options: options)
        }
        conformance.tearDown = { store in
            try await store.close()
            try FileManager.default.removeItem(at: store.fileURL)
        }
        if E.self == ConformanceEntity.self {
            conformance.makeUnencodableEntity = { ConformanceEntity.unencodable(index: $0) as! E }
        }
        return RepositoryConformance(
            options: conformance,
            makeRepository: { try await FileRepository<E>(fileURL: directory.file(), options: options) },
            makeEntity: makeEntity)
    }

    @Test func conformsWithIntIDs() async throws {
        try await suite(ConformanceEntity.self, makeEntity: ConformanceEntity.make).run()
    }

    @Test func conformsWithStringIDs() async throws {
        try await suite(Note.self, makeEntity: Note.make).run()
    }

    @Test func conformsWithUUIDIDs() async throws {
        try await suite(Ticket.self, makeEntity: Ticket.make).run()
    }

    /// The same laws for a file in the JSON codec, which files written before codecs are in.
    @Test func conformsInTheJSONCodec() async throws {
        try await suite(ConformanceEntity.self, codec: .json, makeEntity: ConformanceEntity.make).run()
        try await suite(Note.self, codec: .json, makeEntity: Note.make).run()
    }

    /// The migration area: the file reopened with each version of the suite's versioned fixture.
    @Test func migrations() async throws {
        var options = ConformanceOptions<FileRepository<ConformanceEntity>>()
        let directory = self.directory
        options.makeMigrationStoreLocation = { FileLocation(fileURL: directory.file()) }
        try await RepositoryConformance(
            options: options, makeRepository: { try await FileRepository(fileURL: directory.file()) }
        ).migrations()
    }

    @Test func conformsWithRelaxedDurability() async throws {
        try await suite(ConformanceEntity.self, durability: .never, makeEntity: ConformanceEntity.make).run()
        try await suite(
            ConformanceEntity.self, durability: .interval(.milliseconds(5)),
            makeEntity: ConformanceEntity.make
        ).run()
    }
}

/// A store file the migration area opens with each version of its fixture.
struct FileLocation: MigrationStoreLocation {
    let fileURL: URL
    /// Each open waits a moment for the lock. A child process another test starts at the
    /// moment of a close holds a copy of the file's descriptor, and so its lock, until the
    /// child runs its program (which closes it); a reopen then, in a CI run full of child
    /// processes, was refused as `locked` once.
    private let lockWait = Duration.seconds(5)

    func open<Entity: VersionedConformanceEntity>(
        migrations: Migrations<Entity>
    ) async throws -> OpenedStore<Entity> {
        let store = try await FileRepository<Entity>(
            fileURL: fileURL, options: .init(lockWait: lockWait), migrations: migrations)
        return OpenedStore(store) { try await store.close() }
    }

    func openWithoutMigrations<Entity: VersionedConformanceEntity>() async throws -> OpenedStore<Entity> {
        let store = try await FileRepository<Entity>(fileURL: fileURL, options: .init(lockWait: lockWait))
        return OpenedStore(store) { try await store.close() }
    }

    func remove() throws {
        try FileManager.default.removeItem(at: fileURL)
    }
}
