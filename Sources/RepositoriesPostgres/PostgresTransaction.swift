import Repositories
import Synchronization

/// A ``PostgresRepository``'s reads and writes inside one transaction, on one connection:
/// the `tx` of ``PostgresRepository/transaction(_:)``. Everything written through it commits
/// together when the transaction's body returns, or not at all.
///
/// It is a `Repository`, so code written against the protocol runs inside a transaction
/// unchanged. Reads see what the transaction wrote, and what other transactions committed
/// before each statement (PostgreSQL's `READ COMMITTED`).
///
/// A statement that fails (a constraint, a lost connection, a cancellation) ends the
/// transaction: PostgreSQL rolls it back, every later call through it throws the same
/// error, and so does ``PostgresRepository/transaction(_:)``, even if the body caught the
/// error. Used after its transaction ended, it throws `closed`.
public struct PostgresTransaction<Entity: Codable & Identifiable & Sendable>: Repository, Sendable
where Entity.ID: Codable & Sendable {
    /// The type that identifies an entity.
    public typealias ID = Entity.ID

    let repository: PostgresRepository<Entity>
    let connection: PostgresConnection
    let state: TransactionState

    /// Whether the transaction is over, and the failure that ended it early.
    final class TransactionState: Sendable {
        private let value = Mutex<(ended: Bool, failure: RepositoryError?)>((false, nil))
        /// What the transaction's writes changed, announced when it commits.
        private let changed = Mutex<(keys: [PostgresKey], everything: Bool)>(([], false))

        var failure: RepositoryError? { value.withLock { $0.failure } }

        func record(_ keys: [PostgresKey]) { changed.withLock { $0.keys += keys } }
        func recordEverything() { changed.withLock { $0.everything = true } }

        /// Announces what the transaction changed through `runner`, once it committed.
        func announceCommitted(through runner: some PostgresStatementRunner) {
            let (keys, everything) = changed.withLock { $0 }
            if everything { runner.announceEverything() } else { runner.announce(keys) }
        }

        /// Throws `closed` once the transaction ended, or the failure that ended it.
        func checkUsable(_ location: String) throws {
            let (ended, failure) = value.withLock { $0 }
            if let failure { throw failure }
            if ended {
                throw RepositoryError(
                    .closed, reason: "The transaction this was part of has ended",
                    recovery: "Use the transaction only inside the body given to transaction(_:)",
                    location: location)
            }
        }

        func fail(_ error: RepositoryError) { value.withLock { $0.failure = $0.failure ?? error } }
        func end() { value.withLock { $0.ended = true } }
    }

    /// The entity stored under `id`, or `nil`.
    public func fetch(id: ID) async throws -> Entity? { try await repository.fetch(id: id, on: self) }
    /// Every entity, in insertion order.
    public func fetchAll() async throws -> [Entity] { try await repository.fetchAll(on: self) }
    /// The entities stored under `ids`, in the order of `ids`, skipping absent and repeated IDs.
    public func fetch(ids: [ID]) async throws -> [Entity] { try await repository.fetch(ids: ids, on: self) }
    /// The entities `query` selects, run in PostgreSQL as far as it can
    /// (``PostgresRepository/fetch(_:)``), inside the transaction.
    public func fetch(_ query: Query<Entity>) async throws -> [Entity] {
        try await repository.fetch(query, on: self)
    }
    /// How many entities `query` would return (``PostgresRepository/count(_:)``).
    public func count(_ query: Query<Entity>) async throws -> Int {
        try await repository.count(query, on: self)
    }
    /// How many entities are stored.
    public func count() async throws -> Int { try await repository.count(on: self) }
    /// Inserts `entity`, or replaces the one stored under its ID; committed with the transaction.
    public func save(_ entity: Entity) async throws { try await repository.save(entity, on: self) }
    /// Saves every entity of `entities`; committed with the transaction.
    public func save(contentsOf entities: [Entity]) async throws {
        try await repository.save(contentsOf: entities, on: self)
    }
    /// Removes the entity stored under `id`; committed with the transaction.
    public func delete(id: ID) async throws { try await repository.delete(id: id, on: self) }
    /// Removes the entities stored under `ids`; committed with the transaction.
    public func delete(ids: [ID]) async throws { try await repository.delete(ids: ids, on: self) }
    /// Removes every entity of the table; committed with the transaction.
    public func deleteAll() async throws { try await repository.deleteAll(on: self) }
}

extension PostgresTransaction: PostgresStatementRunner {
    /// Keeps `keys` until the transaction commits.
    func announce(_ keys: [PostgresKey]) { state.record(keys) }

    /// Keeps "anything may have changed" until the transaction commits.
    func announceEverything() { state.recordEverything() }

    /// Runs `body` on the transaction's connection, never again on another: a failure ends
    /// the transaction (PostgreSQL has rolled it back).
    func perform<Result: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> Result)
        async throws -> Result
    {
        try state.checkUsable(repository.location)
        do {
            return try await connection.run(body)
        } catch let error as PostgresError {
            var failure = error.repositoryError(location: repository.location)
            if error.connectionLost {
                failure = RepositoryError(
                    .unavailable,
                    reason:
                        "The connection was lost inside a transaction, which PostgreSQL rolls back: nothing of it was written",
                    recovery: "Run the transaction again", location: repository.location, underlying: error)
            }
            state.fail(failure)
            throw failure
        } catch {
            // A cancellation: the statement's transaction is rolled back.
            let cancelled = RepositoryError(
                .unavailable, reason: "The transaction was cancelled; nothing of it was written",
                location: repository.location, underlying: error)
            state.fail(cancelled)
            throw error
        }
    }
}

extension PostgresRepository {
    /// Runs `body` in one transaction: what it writes through `tx` commits together when it
    /// returns, or, when it throws or is cancelled, not at all.
    ///
    /// ```swift
    /// try await orders.transaction { tx in
    ///     guard var order = try await tx.fetch(id: orderID) else { throw NoSuchOrder() }
    ///     order.status = .shipped
    ///     try await tx.save(order)
    ///     try await tx.delete(id: cartID)
    /// }
    /// ```
    ///
    /// The transaction holds one of the pool's connections while `body` runs, so keep it
    /// short. Nothing is tried again by itself: a failure rolls everything back and is
    /// thrown, and running the transaction again is the caller's choice. When the connection
    /// is lost while the commit is on its way, PostgreSQL is asked whether it committed
    /// (`pg_xact_status`): the result is returned if it did, `unavailable` thrown if not. The
    /// notifications of its writes reach ``changes()`` listeners when it commits.
    ///
    /// - Returns: what `body` returns, once the transaction committed.
    /// - Throws: what `body` throws (rolled back); the first failure of a statement inside
    ///   it, even one the body caught (rolled back); `unavailable` when the connection was
    ///   lost; `CancellationError`.
    public func transaction<T: Sendable>(_ body: (PostgresTransaction<Entity>) async throws -> T) async throws
        -> T
    {
        try Task.checkCancellation()
        return try await pool.holding { connection in
            let transaction: String?
            do {
                transaction = try await connection.run { connection in
                    try connection.query(script: "BEGIN; SELECT pg_current_xact_id()::text").text(0, 0)
                }
            } catch let error as PostgresError {
                throw error.repositoryError(location: location)
            }
            let state = PostgresTransaction<Entity>.TransactionState()
            let result: T
            do {
                result = try await body(
                    PostgresTransaction(repository: self, connection: connection, state: state))
                if let failure = state.failure { throw failure }
                state.end()
            } catch {
                state.end()
                await Self.rollBack(connection)
                throw error
            }
            do {
                try await connection.run { try $0.execute(script: "COMMIT") }
                state.announceCommitted(through: self)
                return result
            } catch let error as PostgresError where error.connectionLost && !error.failedToConnect {
                if let transaction, try await committed(transaction) {
                    state.announceCommitted(through: self)
                    return result
                }
                throw RepositoryError(
                    .unavailable,
                    reason:
                        "The connection was lost while the transaction committed, and PostgreSQL says it did not: nothing of it was written",
                    recovery: "Run the transaction again", location: location, underlying: error)
            } catch let error as PostgresError {
                throw error.repositoryError(location: location)
            } catch {
                await Self.rollBack(connection)
                throw error
            }
        }
    }
}
