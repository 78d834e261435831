import Repositories

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

extension PostgresStatementRunner {
    /// Inserts or replaces `rows` (distinct keys, each with its body) in `table`, in one
    /// statement: the one-row upsert for one row, the multi-row one in the rows' order for
    /// more; then announces the IDs it changed.
    func upsert(_ rows: [(key: PostgresKey, row: PostgresEncodedRow)], into table: PostgresTable)
        async throws
    {
        guard !rows.isEmpty else { return }
        let (statement, parameters) = try table.upsertStatement(for: rows)
        let changed = try await perform { connection in
            table.changedKeys(in: try connection.execute(statement, parameters))
        }
        announce(changed)
    }
}

/// A repository's pool as a statement runner: statements commit by themselves, a read or an
/// idempotent write is sent once more after a lost connection, and what they changed is
/// announced at once. The repository runs through it, and so does ``PostgresSaveBatcher``,
/// which holds no repository.
struct PostgresPoolRunner: PostgresStatementRunner {
    let pool: PostgresPool
    let location: String
    /// `nil` when ``PostgresOptions/notifiesChanges`` is false.
    let notifier: PostgresNotifier?

    func perform<Result: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> Result)
        async throws -> Result
    {
        try await pool.perform(location: location, body)
    }

    func announce(_ keys: [PostgresKey]) {
        notifier?.announce(keys)
    }

    func announceEverything() {
        notifier?.announceEverything()
    }

    /// ``PostgresStatementRunner/upsert(_:into:)`` on `connection`, a connection of the pool
    /// already held, from its queue: for ``PostgresSaveBatcher``, which sends statement after
    /// statement there without a hop back to a task between them.
    ///
    /// - Throws: `RepositoryError` `closed` once the pool is closed.
    func upsert(
        _ rows: [(key: PostgresKey, row: PostgresEncodedRow)], into table: PostgresTable,
        on connection: PostgresConnection
    ) throws {
        guard !rows.isEmpty else { return }
        guard !pool.isClosed else { throw RepositoryError.closed(location: location) }
        let (statement, parameters) = try table.upsertStatement(for: rows)
        let changed = try PostgresPool.perform(on: connection, location: location) { connection in
            table.changedKeys(in: try connection.execute(statement, parameters))
        }
        announce(changed)
    }
}

extension PostgresRepository: PostgresStatementRunner {
    func perform<Result: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> Result)
        async throws -> Result
    {
        try await poolRunner.perform(body)
    }

    func announce(_ keys: [PostgresKey]) {
        poolRunner.announce(keys)
    }

    func announceEverything() {
        poolRunner.announceEverything()
    }
}
