/// Where a repository's statement runs: its pool (``PostgresRepository``, which sends a read
/// or an idempotent write again on a new connection when its connection was lost), or the one
/// connection of a transaction (``PostgresTransaction``, which sends nothing again).
protocol PostgresStatementRunner: Sendable {
    /// Runs `body` on a connection, on that connection's queue, and maps failures to
    /// `RepositoryError`.
    func perform<Result: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> Result)
        async throws -> Result

    /// Announces to the other instances that the rows of `keys` changed, once what wrote them
    /// has committed: at once on the pool, whose statements commit by themselves; when the
    /// transaction commits, inside one.
    func announce(_ keys: [PostgresKey])

    /// Announces that anything may have changed (a `deleteAll`), as ``announce(_:)`` does.
    func announceEverything()
}

extension PostgresRepository: PostgresStatementRunner {
    func announce(_ keys: [PostgresKey]) {
        notifier?.announce(keys)
    }

    func announceEverything() {
        notifier?.announceEverything()
    }
}
