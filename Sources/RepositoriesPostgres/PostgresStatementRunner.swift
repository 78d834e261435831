/// Where a repository's statement runs: its pool (``PostgresRepository``, which sends a read
/// or an idempotent write again on a new connection when its connection was lost), or the one
/// connection of a transaction (``PostgresTransaction``, which sends nothing again).
protocol PostgresStatementRunner: Sendable {
    /// Runs `body` on a connection, on that connection's queue, and maps failures to
    /// `RepositoryError`.
    func perform<Result: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> Result)
        async throws -> Result
}

extension PostgresRepository: PostgresStatementRunner {}
