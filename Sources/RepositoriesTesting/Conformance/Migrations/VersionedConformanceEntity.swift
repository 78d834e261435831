/// What every entity of the migration area is: the three versions of the suite's versioned
/// fixture, ``ConformanceEntityV1``, ``ConformanceEntityV2`` and ``ConformanceEntityV3``.
///
/// A ``MigrationStoreLocation`` opens its store for any such entity, so one generic method
/// serves the three versions:
///
/// ```swift
/// func open<Entity: VersionedConformanceEntity>(
///     migrations: Migrations<Entity>
/// ) async throws -> OpenedStore<Entity> {
///     let store = try await FileRepository<Entity>(fileURL: fileURL, migrations: migrations)
///     return OpenedStore(store) { try await store.close() }
/// }
/// ```
public protocol VersionedConformanceEntity: Codable, Hashable, Identifiable, Sendable where ID == Int {
    /// The revision the entity was made from: the area changes it to tell a replaced entity
    /// from the one it replaced.
    var revision: Int { get }

    /// The entity with ID `index` at `revision`, as this version writes it: every field but
    /// the ID changes with the revision.
    static func make(index: Int, revision: Int) -> Self
}
