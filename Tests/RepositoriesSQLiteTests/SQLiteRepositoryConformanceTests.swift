import Foundation
import Repositories
import RepositoriesSQLite
import RepositoriesTestSupport
import RepositoriesTesting
import Testing

/// The conformance suite over file-backed repositories (durability included) and in-memory
/// ones, with `Int`, `String` and `UUID` IDs.
@Suite struct SQLiteRepositoryConformanceTests {
    /// A directory of its own for each test, removed with it.
    let scratch: TemporaryDirectory

    init() throws {
        scratch = try TemporaryDirectory()
    }

    @Test func basics() async throws {
        try await fileSuite(in: scratch).basics()
    }
    @Test func batches() async throws {
        try await fileSuite(in: scratch).batches()
    }
    @Test func ordering() async throws {
        try await fileSuite(in: scratch).ordering()
    }
    @Test func queries() async throws {
        try await fileSuite(in: scratch).queries()
    }
    @Test func concurrency() async throws {
        try await fileSuite(in: scratch).concurrency()
    }
    @Test func randomized() async throws {
        try await fileSuite(in: scratch).randomized()
    }
    @Test func durability() async throws {
        try await fileSuite(in: scratch).durability()
    }

    @Test func migrations() async throws {
        try await fileSuite(in: scratch).migrations()
    }

    @Test func conformsWithStringIDs() async throws {
        let report = try await fileSuite(
            in: scratch, makeEntity: Note.make, makeUnencodable: Note.unencodable
        ).run()
        #expect(report.skipped.isEmpty)
    }

    @Test func conformsWithUUIDIDs() async throws {
        let report = try await fileSuite(
            in: scratch, makeEntity: Ticket.make, makeUnencodable: Ticket.unencodable
        ).run()
        #expect(report.skipped.isEmpty)
    }

    @Test func inMemoryConformsWithIntStringAndUUIDIDs() async throws {
        try await RepositoryConformance(makeRepository: { try SQLiteRepository<ConformanceEntity>.inMemory() }
        )
        .check([.basics, .batches, .ordering, .queries, .concurrency, .randomized])
        var notes = ConformanceOptions<SQLiteRepository<Note>>()
        notes.makeUnencodableEntity = Note.unencodable
        try await RepositoryConformance(
            options: notes, makeRepository: { try SQLiteRepository<Note>.inMemory() }, makeEntity: Note.make
        ).check([.basics, .batches, .ordering, .queries, .concurrency, .randomized])
        var tickets = ConformanceOptions<SQLiteRepository<Ticket>>()
        tickets.makeUnencodableEntity = Ticket.unencodable
        try await RepositoryConformance(
            options: tickets, makeRepository: { try SQLiteRepository<Ticket>.inMemory() },
            makeEntity: Ticket.make
        ).check([.basics, .batches, .ordering, .queries, .concurrency, .randomized])
    }
}

/// Options for a file-backed repository: reopen closes and opens the same file; tear-down
/// closes it and deletes its files.
func fileOptions<Entity>(
    makeUnencodable: (@Sendable (Int) -> Entity)? = nil
) -> ConformanceOptions<SQLiteRepository<Entity>> {
    var options = ConformanceOptions<SQLiteRepository<Entity>>()
    options.reopen = { store in
        try await store.close()
        let fileURL = try #require(store.fileURL)
        return try await SQLiteRepository<Entity>(fileURL: fileURL, options: store.options)
    }
    options.tearDown = { store in
        try await store.close()
        if let fileURL = store.fileURL { try removeDatabaseFiles(at: fileURL) }
    }
    options.makeUnencodableEntity = makeUnencodable
    return options
}

/// The suite over `ConformanceEntity` in files of `scratch`, the migration area included.
func fileSuite(in scratch: TemporaryDirectory) -> RepositoryConformance<SQLiteRepository<ConformanceEntity>> {
    var options: ConformanceOptions<SQLiteRepository<ConformanceEntity>> = fileOptions()
    options.makeMigrationStoreLocation = { SQLiteLocation(fileURL: scratch.file()) }
    return RepositoryConformance(
        options: options,
        makeRepository: { try await SQLiteRepository<ConformanceEntity>(fileURL: scratch.file()) })
}

/// The suite over the author entity `Entity` in files of `scratch`, the migration area included.
func fileSuite<Entity: Equatable>(
    in scratch: TemporaryDirectory, makeEntity: @escaping @Sendable (Int, Int) -> Entity,
    makeUnencodable: @escaping @Sendable (Int) -> Entity
) -> RepositoryConformance<SQLiteRepository<Entity>> {
    var options = fileOptions(makeUnencodable: makeUnencodable)
    options.makeMigrationStoreLocation = { SQLiteLocation(fileURL: scratch.file()) }
    return RepositoryConformance(
        options: options,
        makeRepository: { try await SQLiteRepository<Entity>(fileURL: scratch.file()) },
        makeEntity: makeEntity)
}

/// A database file the migration area opens with each version of its fixture. The table
/// name is fixed: by default it follows the entity's type, which differs between versions.
struct SQLiteLocation: MigrationStoreLocation {
    let fileURL: URL
    let options = SQLiteOptions(tableName: "versioned_entities")

    func open<Entity: VersionedConformanceEntity>(
        migrations: Migrations<Entity>
    ) async throws -> OpenedStore<Entity> {
        let store = try await SQLiteRepository<Entity>(
            fileURL: fileURL, options: options, migrations: migrations)
        return OpenedStore(store) { try await store.close() }
    }

    func openWithoutMigrations<Entity: VersionedConformanceEntity>() async throws -> OpenedStore<Entity> {
        let store = try await SQLiteRepository<Entity>(fileURL: fileURL, options: options)
        return OpenedStore(store) { try await store.close() }
    }

    func remove() throws {
        try removeDatabaseFiles(at: fileURL)
    }
}
