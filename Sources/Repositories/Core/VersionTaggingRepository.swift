/// A repository that tags each entity's version and can make a write conditional on the
/// tag, as a web API does with `ETag` and `If-Match`: the write is refused when the entity
/// changed since the tag was read.
///
/// ``OfflineFirstRepository`` uses it when its remote conforms. It reads each pending
/// change's current copy with its tag, settles a conflict by the ``ConflictPolicy``, and
/// then sends the write on that tag. So a change another device makes between that read
/// and the write is refused by the remote (`conflict`) and settled again, instead of being
/// overwritten:
///
/// ```swift
/// guard let current = try await api.fetchTagged(id: note.id), let tag = current.tag else { … }
/// var edited = current.entity
/// edited.title = "Call the plumber"
/// try await api.save(edited, ifMatch: tag)   // throws conflict if it changed meanwhile
/// ```
///
/// ``update(id:_:)`` does that read, change and write for you, reading again when
/// another writer got there first, so two instances incrementing one counter lose nothing.
///
/// A change made on no remote version (the device never had a copy) goes out as a create
/// the remote refuses once any copy of the ID exists (``saveIfAbsent(_:)``, `If-None-Match:
/// *` on the web), so a create that times out and lands late cannot overwrite a newer write
/// of that ID, ETags or not. A remote with no conditional writes at all cannot refuse it,
/// and nothing on the client can protect such a remote's newer writes from a late one.
///
/// `HTTPRepository` and `PostgresRepository` (its rows' `version`) conform, and so do ``RetryingRepository``, ``TimeoutRepository``,
/// ``CircuitBreakerRepository``, ``InstrumentedRepository``, ``ObservedRepository``,
/// ``CoalescingRepository``, ``MappedRepository`` and ``ReadOnlyRepository`` (which refuses
/// the writes) over a conforming base: a remote wrapped in any of them still gets
/// conditional writes from an offline-first sync.
public protocol VersionTaggingRepository<Entity, ID>: Repository {
    /// The current copy of `id` with the tag of its version, or `nil` when there is none.
    /// The tag is `nil` when the remote sent none for this entity.
    func fetchTagged(id: ID) async throws -> TaggedEntity<Entity>?

    /// Saves `entity` if the remote's copy still has the version `tag` names.
    ///
    /// - Throws: `RepositoryError` with code `conflict` when the copy changed or was deleted
    ///   since `tag` was read; then nothing was written.
    func save(_ entity: Entity, ifMatch tag: String) async throws

    /// Saves `entity` only if the remote holds no copy of its ID: a create that does not
    /// overwrite. A web API does it with `If-None-Match: *` on the item, or with a `POST` that
    /// refuses an ID it already holds.
    ///
    /// It needs no version tags: a remote that tags none can still refuse an ID it holds.
    ///
    /// - Throws: `RepositoryError` with code `conflict` when the remote holds a copy of the
    ///   ID (another client created it, or an earlier try of this very create landed); then
    ///   nothing was written.
    func saveIfAbsent(_ entity: Entity) async throws

    /// Deletes `id` if the remote's copy still has the version `tag` names. A copy already
    /// gone is not an error.
    ///
    /// - Throws: `RepositoryError` with code `conflict` when the copy changed since `tag` was
    ///   read; then nothing was deleted.
    func delete(id: ID, ifMatch tag: String) async throws

    /// Changes the entity stored under `id` without losing a write made meanwhile, trying up
    /// to `attempts` times; see ``update(id:_:)``. The default reads with the tag and writes
    /// on it, reading again on `conflict`; a store that can lock the entity while `change`
    /// runs (`PostgresRepository`) does that instead.
    @discardableResult
    func update(id: ID, attempts: Int, _ change: (inout Entity) throws -> Void) async throws -> Entity
}
