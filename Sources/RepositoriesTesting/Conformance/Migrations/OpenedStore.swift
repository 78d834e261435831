import Repositories

/// A store a ``MigrationStoreLocation`` opened, and how to close it.
///
/// ```swift
/// let store = try await SQLiteRepository<Entity>(fileURL: fileURL, migrations: migrations)
/// return OpenedStore(store) { try await store.close() }
/// ```
public struct OpenedStore<Entity: VersionedConformanceEntity>: Sendable {
    /// The store, as the laws use it.
    public let repository: any Repository<Entity, Int>
    private let closeStore: @Sendable () async throws -> Void

    /// Wraps `repository`, closed by `close`.
    ///
    /// - Parameters:
    ///   - repository: the store just opened.
    ///   - close: releases the store so the location can be opened again (closes its file,
    ///     its connections); a store with nothing to release passes `{}`.
    public init(
        _ repository: some Repository<Entity, Int>, close: @escaping @Sendable () async throws -> Void
    ) {
        self.repository = repository
        self.closeStore = close
    }

    /// Closes the store.
    ///
    /// - Throws: what the store's close throws.
    public func close() async throws {
        try await closeStore()
    }
}
