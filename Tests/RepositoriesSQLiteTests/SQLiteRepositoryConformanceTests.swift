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

    @Test(arguments: [EntityCodec.Identifier.binary, .json])
    func migrations(codec: EntityCodec.Identifier) async throws {
        try await fileSuite(in: scratch, codec: codec).migrations()
    }

    // The unencodable Note and Ticket hold a NaN or an infinity, which only JSON refuses: the
    // binary codec stores them, so their unencodable check runs in the JSON codec.

    @Test func conformsWithStringIDs() async throws {
        try await fileSuite(in: scratch, makeEntity: Note.make).run()
    }

    @Test func conformsWithUUIDIDs() async throws {
        try await fileSuite(in: scratch, makeEntity: Ticket.make).run()
    }

    /// The same laws for tables in the JSON codec, which tables written before codecs are in.
    @Test func conformsInTheJSONCodec() async throws {
        try await fileSuite(in: scratch, codec: .json).run()
        let notes = try await fileSuite(
            in: scratch, codec: .json, makeEntity: Note.make, makeUnencodable: Note.unencodable
        ).run()
        // Note and Ticket declare no queryable fields: only the field-query law is skipped.
        #expect(notes.skipped.map(\.law) == [.declaredFieldQueriesMatchReference])
        let tickets = try await fileSuite(
            in: scratch, codec: .json, makeEntity: Ticket.make, makeUnencodable: Ticket.unencodable
        ).run()
        #expect(tickets.skipped.map(\.law) == [.declaredFieldQueriesMatchReference])
    }

    @Test func inMemoryConformsWithIntStringAndUUIDIDs() async throws {
        try await RepositoryConformance(makeRepository: { try SQLiteRepository<ConformanceEntity>.inMemory() }
        )
        .check([.basics, .batches, .ordering, .queries, .concurrency, .randomized])
        // JSON, whose refusal of a NaN or an infinity the unencodable Note and Ticket need.
        let json = SQLiteOptions(codec: .json)
        var notes = ConformanceOptions<SQLiteRepository<Note>>()
        notes.makeUnencodableEntity = Note.unencodable
        try await RepositoryConformance(
            options: notes, makeRepository: { try SQLiteRepository<Note>.inMemory(options: json) },
            makeEntity: Note.make
        ).check([.basics, .batches, .ordering, .queries, .concurrency, .randomized])
        var tickets = ConformanceOptions<SQLiteRepository<Ticket>>()
        tickets.makeUnencodableEntity = Ticket.unencodable
        try await RepositoryConformance(
            options: tickets, makeRepository: { try SQLiteRepository<Ticket>.inMemory(options: json) },
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

/// The suite over `ConformanceEntity` in files of `scratch` whose tables are created in
/// `codec`, the migration area included.
func fileSuite(
    in scratch: TemporaryDirectory, codec: EntityCodec.Identifier = .binary
) -> RepositoryConformance<SQLiteRepository<ConformanceEntity>> {
    var options: ConformanceOptions<SQLiteRepository<ConformanceEntity>> = fileOptions()
    options.makeMigrationStoreLocation = { SQLiteLocation(fileURL: scratch.file(), codec: codec) }
    return RepositoryConformance(
        options: options,
        makeRepository: {
            try await SQLiteRepository<ConformanceEntity>(
                fileURL: scratch.file(), options: SQLiteOptions(codec: codec))
        })
}

/// The suite over the author entity `Entity` in files of `scratch` whose tables are created
/// in `codec`, the migration area included.
func fileSuite<Entity: Equatable>(
    in scratch: TemporaryDirectory, codec: EntityCodec.Identifier = .binary,
    makeEntity: @escaping @Sendable (Int, Int) -> Entity,
    makeUnencodable: (@Sendable (Int) -> Entity)? = nil
) -> RepositoryConformance<SQLiteRepository<Entity>> {
    var options = fileOptions(makeUnencodable: makeUnencodable)
    options.makeMigrationStoreLocation = { SQLiteLocation(fileURL: scratch.file(), codec: codec) }
    return RepositoryConformance(
        options: options,
        makeRepository: {
            try await SQLiteRepository<Entity>(fileURL: scratch.file(), options: SQLiteOptions(codec: codec))
        },
        makeEntity: makeEntity)
}

/// A database file the migration area opens with each version of its fixture. The table
/// name is fixed: by default it follows the entity's type, which differs between versions.
struct SQLiteLocation: MigrationStoreLocation {
    let fileURL: URL
    let options: SQLiteOptions

    init(fileURL: URL, codec: EntityCodec.Identifier = .binary) {
        self.fileURL = fileURL
        options = SQLiteOptions(tableName: "versioned_entities", codec: codec)
    }

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
