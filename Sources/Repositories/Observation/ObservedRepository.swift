/// A repository that announces every change made through it, and offers live streams of
/// one entity or of the whole collection.
///
/// ```swift
/// let todos = FileRepository<Todo>(fileURL: url).observed()
///
/// // A list screen: the current todos at once, then again after every change.
/// for try await list in todos.valuesAll() { render(list) }
///
/// // A detail screen for one todo.
/// for try await todo in todos.values(id: id) { render(todo) }   // nil once deleted
///
/// // Everything that happens.
/// for await change in todos.changes() { log(change) }
/// ```
///
/// - Writes pass through to the base. After a write returns, its change (`saved`, `deleted`,
///   `deletedAll`) is sent to every subscriber. After a write throws, it may still have
///   landed (a lost response), so `invalidated` (or `invalidatedAll`) is sent for what it
///   touched, and observers read again.
/// - ``invalidate(ids:)`` and ``invalidateAll()`` tell observers that data changed elsewhere
///   (a push notification, another process); when the base keeps copies (a
///   ``InvalidatableRepository`` such as ``CacheAsideRepository``) they first drop those
///   copies, so the observers' new read reaches the source.
/// - Value streams subscribe before their first read, so no change between the read and
///   the subscription is missed, and they read the base again after each change that may
///   concern them, so they converge on the stored state even when concurrent writes
///   announce their changes in a different order than they landed.
/// - A value stream ends when its consumer's task is cancelled or stops iterating (the
///   read in progress is cancelled), and ends by throwing when a read throws; subscribe
///   again to resume. A slow consumer sees the latest state: states it had no time to take
///   are skipped, never reordered.
public struct ObservedRepository<Base: Repository>: Repository {
    /// The base's entity.
    public typealias Entity = Base.Entity
    /// The base's ID.
    public typealias ID = Base.ID

    /// The repository calls are passed to.
    public let base: Base
    private let broadcaster = ChangeBroadcaster<RepositoryChange<Entity>>()
    /// The relay of the changes ``init(_:following:)`` follows; `nil` when it follows none.
    private let relay: ChangeRelay?

    /// Wraps `base`.
    public init(_ base: Base) {
        self.base = base
        self.relay = nil
    }

    /// Wraps `base`, and takes every change `changes` reports as made elsewhere: what another
    /// process committed to the same store (`SQLiteRepository.committedChanges()`), or what a
    /// push notification said.
    ///
    /// ```swift
    /// let screen = notes.observed(following: notes.committedChanges())
    /// for try await list in screen.valuesAll() { render(list) }
    /// ```
    ///
    /// Each change goes through ``invalidate(ids:)`` or ``invalidateAll()`` (`saved`,
    /// `deleted` and `invalidated` name their IDs; the others, everything), in the order
    /// `changes` reports them: copies the base keeps are dropped first, then every value
    /// stream concerned reads again.
    ///
    /// - The relay runs until `changes` ends, or until this repository, every copy of it and
    ///   every stream it returned (``changes(bufferingPolicy:)``, ``values(id:)``,
    ///   ``valuesAll()``) are released, which cancels it (and so ends `changes`'s iteration):
    ///   `notes.observed(following: …).valuesAll()` follows for as long as the stream is
    ///   iterated.
    /// - When `changes` throws, the repository stops following: every value stream reads
    ///   no more and ends by throwing that error, and so does every value stream begun later;
    ///   the change streams hear `invalidatedAll`. Make a new one to follow again.
    public init(_ base: Base, following changes: AsyncThrowingStream<RepositoryChange<Entity>, any Error>) {
        self.base = base
        let relay = ChangeRelay()
        self.relay = relay
        relay.start { [base, broadcaster, failure = relay.failure] in
            do {
                for try await change in changes {
                    switch change {
                    case .saved(let entities):
                        await Self.invalidate(ids: entities.map(\.id), of: base, announcingTo: broadcaster)
                    case .deleted(let ids), .invalidated(let ids):
                        await Self.invalidate(ids: ids, of: base, announcingTo: broadcaster)
                    case .deletedAll, .invalidatedAll:
                        await Self.invalidateAll(of: base, announcingTo: broadcaster)
                    }
                }
            } catch is CancellationError {
                // Released: nothing is left to tell.
            } catch {
                failure.record(error)
                await Self.invalidateAll(of: base, announcingTo: broadcaster)
            }
        }
    }

    /// How many change streams (value streams included) are live now: a test hook, so a
    /// test can tell a cancelled consumer's subscription ended.
    package var observerCount: Int { broadcaster.subscriberCount }

    /// A stream of every change announced from now on, in the order announced.
    ///
    /// Each call returns a new stream; it ends when its consumer's task is cancelled or the
    /// stream is dropped. It buffers as `bufferingPolicy` says (every change by default).
    public func changes(
        bufferingPolicy: AsyncStream<RepositoryChange<Entity>>.Continuation.BufferingPolicy = .unbounded
    ) -> AsyncStream<RepositoryChange<Entity>> {
        broadcaster.subscribe(bufferingPolicy: bufferingPolicy, keepingAlive: relay)
    }

    /// A stream of the entity under `id`: its current value (`nil` when absent) at once,
    /// then its value after every change that may concern it.
    ///
    /// - Throws: (through the stream) the first error a read throws, which ends the stream.
    public func values(id: ID) -> AsyncThrowingStream<Entity?, any Error> {
        stream(relevant: { $0.affects(id) }, read: { [base] in try await base.fetch(id: id) })
    }

    /// A stream of the whole collection: every entity at once, then every entity again
    /// after every change.
    ///
    /// - Throws: (through the stream) the first error a read throws, which ends the stream.
    public func valuesAll() -> AsyncThrowingStream<[Entity], any Error> {
        stream(relevant: { _ in true }, read: { [base] in try await base.fetchAll() })
    }

    private func stream<Value: Sendable>(
        relevant: @escaping @Sendable (RepositoryChange<Entity>) -> Bool,
        read: @escaping @Sendable () async throws -> Value
    ) -> AsyncThrowingStream<Value, any Error> {
        // The subscription keeps the relay, so a stream of a repository released at once (the
        // chained `observed(following:).valuesAll()`) still follows.
        let changes = broadcaster.subscribe(keepingAlive: relay)
        let (stream, continuation) = AsyncThrowingStream.makeStream(
            of: Value.self, bufferingPolicy: .bufferingNewest(1))
        let failure = relay?.failure
        let task = Task {
            do {
                try failure?.check()
                continuation.yield(try await read())
                for await change in changes where relevant(change) {
                    try failure?.check()
                    continuation.yield(try await read())
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    private func announce(
        _ success: RepositoryChange<Entity>, orOnFailure failure: RepositoryChange<Entity>,
        _ write: () async throws -> Void
    ) async throws {
        do {
            try await write()
        } catch {
            broadcaster.send(failure)
            throw error
        }
        broadcaster.send(success)
    }

    /// Fetches from ``base``.
    public func fetch(id: ID) async throws -> Entity? { try await base.fetch(id: id) }
    /// Fetches from ``base``.
    public func fetchAll() async throws -> [Entity] { try await base.fetchAll() }
    /// Fetches from ``base``.
    public func fetch(ids: [ID]) async throws -> [Entity] { try await base.fetch(ids: ids) }
    /// Queries ``base``.
    public func fetch(_ query: Query<Entity>) async throws -> [Entity] { try await base.fetch(query) }
    /// Counts what the base answers to the query.
    public func count(_ query: Query<Entity>) async throws -> Int { try await base.count(query) }
    /// Counts ``base``.
    public func count() async throws -> Int { try await base.count() }

    /// Saves to ``base``, then announces `saved`; announces `invalidated` if it throws.
    public func save(_ entity: Entity) async throws {
        try await announce(.saved([entity]), orOnFailure: .invalidated([entity.id])) {
            try await base.save(entity)
        }
    }

    /// Saves to ``base``, then announces `saved`; announces `invalidated` if it throws.
    public func save(contentsOf entities: [Entity]) async throws {
        try await announce(.saved(entities), orOnFailure: .invalidated(entities.map(\.id))) {
            try await base.save(contentsOf: entities)
        }
    }

    /// Deletes from ``base``, then announces `deleted`; announces `invalidated` if it throws.
    public func delete(id: ID) async throws {
        try await announce(.deleted([id]), orOnFailure: .invalidated([id])) { try await base.delete(id: id) }
    }

    /// Deletes from ``base``, then announces `deleted`; announces `invalidated` if it throws.
    public func delete(ids: [ID]) async throws {
        try await announce(.deleted(ids), orOnFailure: .invalidated(ids)) { try await base.delete(ids: ids) }
    }

    /// Deletes everything from ``base``, then announces `deletedAll`; announces
    /// `invalidatedAll` if it throws.
    public func deleteAll() async throws {
        try await announce(.deletedAll, orOnFailure: .invalidatedAll) { try await base.deleteAll() }
    }
}

extension ObservedRepository: InvalidatableRepository {
    /// Drops the base's copies of `ids` when it keeps any, then announces `invalidated`, so
    /// every value stream concerned reads again.
    public func invalidate(ids: [ID]) async {
        await Self.invalidate(ids: ids, of: base, announcingTo: broadcaster)
    }

    /// Drops every copy the base keeps, then announces `invalidatedAll`, so every value
    /// stream reads again.
    public func invalidateAll() async {
        await Self.invalidateAll(of: base, announcingTo: broadcaster)
    }

    private static func invalidate(
        ids: [ID], of base: Base, announcingTo broadcaster: ChangeBroadcaster<RepositoryChange<Entity>>
    ) async {
        if let invalidatable = base as? any InvalidatableRepository<Entity, ID> {
            await invalidatable.invalidate(ids: ids)
        }
        broadcaster.send(.invalidated(ids))
    }

    private static func invalidateAll(
        of base: Base, announcingTo broadcaster: ChangeBroadcaster<RepositoryChange<Entity>>
    ) async {
        if let invalidatable = base as? any InvalidatableRepository<Entity, ID> {
            await invalidatable.invalidateAll()
        }
        broadcaster.send(.invalidatedAll)
    }
}

extension ObservedRepository: VersionTaggingRepository where Base: VersionTaggingRepository {
    /// The base's tagged copy of `id`.
    public func fetchTagged(id: ID) async throws -> TaggedEntity<Entity>? {
        try await base.fetchTagged(id: id)
    }

    /// Saves to ``base`` if its copy still has the version `tag` names, then announces
    /// `saved`; announces `invalidated` if it throws.
    public func save(_ entity: Entity, ifMatch tag: String) async throws {
        try await announce(.saved([entity]), orOnFailure: .invalidated([entity.id])) {
            try await base.save(entity, ifMatch: tag)
        }
    }

    /// Saves to ``base`` only if it holds no copy of the ID, then announces `saved`; announces
    /// `invalidated` if it throws (a `conflict` says the base holds a copy this stream may not
    /// have seen).
    public func saveIfAbsent(_ entity: Entity) async throws {
        try await announce(.saved([entity]), orOnFailure: .invalidated([entity.id])) {
            try await base.saveIfAbsent(entity)
        }
    }

    /// Deletes from ``base`` if its copy still has the version `tag` names, then announces
    /// `deleted`; announces `invalidated` if it throws.
    public func delete(id: ID, ifMatch tag: String) async throws {
        try await announce(.deleted([id]), orOnFailure: .invalidated([id])) {
            try await base.delete(id: id, ifMatch: tag)
        }
    }
}
