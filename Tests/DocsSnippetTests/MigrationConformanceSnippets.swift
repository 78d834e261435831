import Foundation
import Repositories
import RepositoriesTesting
import Testing

// The Swift snippet of Docs/Migrations.md, "Proving a store: the conformance area",
// verbatim: a store author's location and test, run here against `FileRepository`.

struct FileLocation: MigrationStoreLocation {
    let fileURL: URL

    func open<Entity: VersionedConformanceEntity>(
        migrations: Migrations<Entity>
    ) async throws -> OpenedStore<Entity> {
        let store = try await FileRepository<Entity>(fileURL: fileURL, migrations: migrations)
        return OpenedStore(store) { try await store.close() }
    }

    func openWithoutMigrations<Entity: VersionedConformanceEntity>() async throws -> OpenedStore<Entity> {
        let store = try await FileRepository<Entity>(fileURL: fileURL)
        return OpenedStore(store) { try await store.close() }
    }

    func remove() throws {
        try FileManager.default.removeItem(at: fileURL)
    }
}

@Test func migrations() async throws {
    let directory = URL.temporaryDirectory
    var options = ConformanceOptions<FileRepository<ConformanceEntity>>()
    options.makeMigrationStoreLocation = {
        FileLocation(fileURL: directory.appending(path: "\(UUID()).store"))
    }
    try await RepositoryConformance(
        options: options,
        makeRepository: { try await FileRepository(fileURL: directory.appending(path: "\(UUID()).store")) }
    ).migrations()
}
