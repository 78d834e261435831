/// A store that applies a write at most once per idempotency key: the key, and what the
/// write did, are kept with the write itself, in one transaction, so a request sent again
/// (its answer was lost, the client retried) is answered as the first time and never
/// applied twice, even across a restart of the server.
///
/// The server half of exactly-once sync. `SyncEndpoint` (module `RepositoriesHTTP`) applies
/// every write that carries an `Idempotency-Key` through it:
///
/// ```swift
/// let result = try await store.apply(.save(note), idempotencyKey: key, fingerprint: "PUT /notes/5")
/// if result.replayed, result.fingerprint != "PUT /notes/5" { /* the key was reused: 422 */ }
/// ```
///
/// `InMemoryRepository` and `PostgresRepository` conform.
public protocol IdempotentWriteRepository<Entity, ID>: Repository {
    /// Applies `write` unless `idempotencyKey` was applied before, keeping the key with what
    /// the write did in the write's own transaction; a key applied before writes nothing and
    /// answers what it did then (``KeyedWriteResult/replayed``).
    ///
    /// - Parameters:
    ///   - write: the save, create or delete.
    ///   - idempotencyKey: the client's key for this request.
    ///   - fingerprint: what names the request (`"PUT /notes/5"`), kept with the key, so a
    ///     key reused for another request can be told apart.
    func apply(_ write: KeyedWrite<Entity, ID>, idempotencyKey: String, fingerprint: String) async throws
        -> KeyedWriteResult<Entity>
}
