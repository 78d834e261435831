/// A repository of stored records (DTOs) seen as a repository of domain entities: every
/// entity is converted on its way in and out.
///
/// ```swift
/// struct PersonRecord: Identifiable, Codable, Sendable { var id: UUID; var name: String; var born: String }
/// struct Person: Identifiable, Sendable { var id: UUID; var name: String; var birthday: Date }
///
/// let people = records.mapped(
///     toDomain: { try Person(id: $0.id, name: $0.name, birthday: parse($0.born)) },
///     toStored: { PersonRecord(id: $0.id, name: $0.name, born: format($0.birthday)) })
/// ```
///
/// The two entity types share one ID type, and a conversion must keep the ID.
///
/// - Writes convert first and write second, so a conversion that throws writes nothing:
///   `save(contentsOf:)` converts the whole batch before handing it to the base, and stays
///   all or nothing.
/// - A `toStored` that throws (or changes the ID) makes the write throw
///   ``RepositoryError/Code/encodingFailed`` naming the ID, with the conversion's error as
///   ``RepositoryError/underlying``.
/// - A `toDomain` that throws makes the read throw ``RepositoryError/Code/decodingFailed``
///   naming the record; a read never skips a record it cannot convert.
/// - Queries are written against the domain type, which the base cannot run, so
///   ``fetch(_:)`` reads every record, converts it, and applies the query in memory: O(*n*)
///   conversions per query. `fetch(ids:)`, `count()`, `delete(ids:)` and `deleteAll()` use
///   the base's own implementations.
public struct MappedRepository<Base: Repository, Entity: Identifiable & Sendable>: Repository
where Entity.ID == Base.ID {
    /// The ID both entity types share.
    public typealias ID = Base.ID

    /// The repository of stored records.
    public let base: Base
    private let toDomain: @Sendable (Base.Entity) throws -> Entity
    private let toStored: @Sendable (Entity) throws -> Base.Entity

    /// Wraps `base`, converting with `toDomain` on reads and `toStored` on writes.
    public init(
        _ base: Base,
        toDomain: @escaping @Sendable (Base.Entity) throws -> Entity,
        toStored: @escaping @Sendable (Entity) throws -> Base.Entity
    ) {
        self.base = base
        self.toDomain = toDomain
        self.toStored = toStored
    }

    /// Converts a record read from ``base``; internal, as the change feed's conformance
    /// (ChangeFeedRepository+Decorators.swift) converts its pages' records too.
    func domain(_ record: Base.Entity) throws -> Entity {
        do {
            return try toDomain(record)
        } catch {
            throw RepositoryError.decodingFailed(record: String(describing: record.id), underlying: error)
        }
    }

    private func stored(_ entity: Entity) throws -> Base.Entity {
        let record: Base.Entity
        do {
            record = try toStored(entity)
        } catch {
            throw RepositoryError.encodingFailed(id: String(describing: entity.id), underlying: error)
        }
        guard record.id == entity.id else {
            throw RepositoryError(
                .encodingFailed,
                reason:
                    "toStored turned the entity with ID \(entity.id) into a record with ID \(record.id), so nothing was written",
                recovery: "Make the conversion keep the ID", id: String(describing: entity.id))
        }
        return record
    }

    /// Fetches the record from ``base`` and converts it.
    ///
    /// - Throws: ``RepositoryError/Code/decodingFailed`` when the record cannot be converted.
    public func fetch(id: ID) async throws -> Entity? {
        try await base.fetch(id: id).map(domain)
    }

    /// Fetches every record from ``base`` and converts each.
    ///
    /// - Throws: ``RepositoryError/Code/decodingFailed`` naming the first record that cannot be converted.
    public func fetchAll() async throws -> [Entity] {
        try await base.fetchAll().map(domain)
    }

    /// Fetches the records from ``base`` and converts each.
    public func fetch(ids: [ID]) async throws -> [Entity] {
        try await base.fetch(ids: ids).map(domain)
    }

    /// Fetches every record, converts it, then applies `query` in memory.
    ///
    /// - Throws: ``RepositoryError/Code/rejected`` for a negative offset or limit (before
    ///   anything is read).
    /// - Complexity: O(*n*) conversions, plus O(*n* log *n*) when the query sorts.
    public func fetch(_ query: Query<Entity>) async throws -> [Entity] {
        try query.validate()
        return try query.apply(to: await fetchAll())
    }

    /// Counts ``base``; nothing is converted.
    public func count() async throws -> Int {
        try await base.count()
    }

    /// Converts `entity`, then saves the record to ``base``.
    ///
    /// - Throws: ``RepositoryError/Code/encodingFailed`` when the conversion throws or
    ///   changes the ID; nothing was written.
    public func save(_ entity: Entity) async throws {
        try await base.save(stored(entity))
    }

    /// Converts the whole batch, then saves it to ``base`` in one call: all or nothing.
    ///
    /// - Throws: ``RepositoryError/Code/encodingFailed`` when any conversion fails; nothing
    ///   was written.
    public func save(contentsOf entities: [Entity]) async throws {
        try await base.save(contentsOf: entities.map(stored))
    }

    /// Deletes from ``base``.
    public func delete(id: ID) async throws {
        try await base.delete(id: id)
    }

    /// Deletes from ``base``.
    public func delete(ids: [ID]) async throws {
        try await base.delete(ids: ids)
    }

    /// Deletes everything from ``base``.
    public func deleteAll() async throws {
        try await base.deleteAll()
    }
}

extension MappedRepository: InvalidatableRepository where Base: InvalidatableRepository {
    /// Forwards to ``base``.
    public func invalidate(ids: [ID]) async { await base.invalidate(ids: ids) }
    /// Forwards to ``base``.
    public func invalidateAll() async { await base.invalidateAll() }
}

extension MappedRepository: VersionTaggingRepository where Base: VersionTaggingRepository {
    /// Fetches the record's tagged copy from ``base`` and converts it; the tag is the record's.
    ///
    /// - Throws: ``RepositoryError/Code/decodingFailed`` when the record cannot be converted.
    public func fetchTagged(id: ID) async throws -> TaggedEntity<Entity>? {
        guard let tagged = try await base.fetchTagged(id: id) else { return nil }
        return TaggedEntity(try domain(tagged.entity), tag: tagged.tag)
    }

    /// Converts `entity`, then saves the record to ``base`` if its copy still has the version
    /// `tag` names.
    ///
    /// - Throws: ``RepositoryError/Code/encodingFailed`` when the conversion throws or
    ///   changes the ID; `conflict` when the copy changed; in both cases nothing was written.
    public func save(_ entity: Entity, ifMatch tag: String) async throws {
        try await base.save(stored(entity), ifMatch: tag)
    }

    /// Converts `entity`, then saves the record to ``base`` only if it holds no copy of the ID.
    ///
    /// - Throws: ``RepositoryError/Code/encodingFailed`` when the conversion throws or
    ///   changes the ID; `conflict` when a copy exists; in both cases nothing was written.
    public func saveIfAbsent(_ entity: Entity) async throws {
        try await base.saveIfAbsent(stored(entity))
    }

    /// Deletes from ``base`` if its copy still has the version `tag` names.
    public func delete(id: ID, ifMatch tag: String) async throws {
        try await base.delete(id: id, ifMatch: tag)
    }
}
