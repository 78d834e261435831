import Repositories

/// One place a store keeps its data (a file, a database, a key), which the migration area
/// of ``RepositoryConformance`` opens again and again, each time with another
/// `Migrations` of its versioned fixture.
///
/// A store author implements ``open(migrations:)`` once, generically, and hands the suite a
/// closure that returns a new, empty location for each law
/// (``ConformanceOptions/makeMigrationStoreLocation``):
///
/// ```swift
/// struct FileLocation: MigrationStoreLocation {
///     let fileURL: URL
///
///     func open<Entity: VersionedConformanceEntity>(
///         migrations: Migrations<Entity>
///     ) async throws -> OpenedStore<Entity> {
///         let store = try await FileRepository<Entity>(fileURL: fileURL, migrations: migrations)
///         return OpenedStore(store) { try await store.close() }
///     }
///
///     func remove() throws {
///         try FileManager.default.removeItem(at: fileURL)
///     }
/// }
/// ```
///
/// Every version must reach the same data: a store that derives where it keeps an entity
/// from the entity's type (a table named after it, say) must be given one fixed name here,
/// or the upgraded store opens empty and the area says so.
public protocol MigrationStoreLocation: Sendable {
    /// Opens the store at this location with `migrations`: upgrading what older versions
    /// wrote, refusing what newer ones wrote, as the store does in an app.
    ///
    /// The suite closes each store it opens (``OpenedStore/close()``) before it opens the
    /// location again.
    ///
    /// - Throws: what the store's initializer throws, such as `RepositoryError`
    ///   `writtenByNewerVersion`.
    func open<Entity: VersionedConformanceEntity>(migrations: Migrations<Entity>) async throws
        -> OpenedStore<Entity>

    /// Opens the store as an app written before the store took `migrations:` did: with the
    /// initializer that has no such argument.
    ///
    /// The default opens with `Migrations()`; implement it when the store has an initializer
    /// without migrations, so the area proves the two read each other's data.
    func openWithoutMigrations<Entity: VersionedConformanceEntity>() async throws -> OpenedStore<Entity>

    /// Deletes what the store wrote here; called once the law is done with the location,
    /// after its last store is closed. The default deletes nothing.
    func remove() async throws
}

extension MigrationStoreLocation {
    /// Opens the store with `Migrations()`, version 1.
    public func openWithoutMigrations<Entity: VersionedConformanceEntity>() async throws -> OpenedStore<
        Entity
    > {
        try await open(migrations: Migrations())
    }

    /// Deletes nothing: for locations the process forgets by itself (an in-memory database).
    public func remove() async throws {}
}
