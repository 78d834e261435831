import Repositories

/// Opening a repository's table: creates it (and the change feed's tables) when missing, or
/// checks an existing one can hold the entities, and reads how it keeps their bodies. Run
/// before the repository exists, because its statements depend on what it finds.
struct PostgresTableSetup: Sendable {
    let table: PostgresTable
    let pool: PostgresPool
    let location: String

    /// ``prepare()``, tried again while the server cannot be reached, for up to `wait`
    /// (`nil`: once), with waits that double from 100 ms to 2 s between tries.
    func prepare(waitingUpTo wait: Duration?) async throws -> PostgresTable {
        guard let wait else { return try await prepare() }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: wait)
        var delay = Duration.milliseconds(100)
        while true {
            do {
                return try await prepare()
            } catch var error as RepositoryError where error.code == .unavailable {
                let left = clock.now.duration(to: deadline)
                guard left > .zero else {
                    error.reason += ", after waiting \(wait) for it to start"
                    throw error
                }
                try await Task.sleep(for: min(delay, left))
                delay = min(delay * 2, .seconds(2))
            }
        }
    }

    /// Creates or checks the table and the feed's; returns the table with the storage its
    /// `body` column has.
    ///
    /// - Throws: `rejected` when a relation of the table's name cannot hold the entities (it
    ///   is left unchanged), or the log's cannot hold the feed.
    func prepare() async throws -> PostgresTable {
        let table = self.table
        let shape = try await pool.perform(location: location) { connection in
            try connection.execute(script: table.createScript)
            return try PostgresTableShape(of: table.quotedName, on: connection)
        }
        var prepared = table
        switch shape.storage(for: table) {
        case .success(let storage):
            prepared.storage = storage
            if storage == .bytea {
                // Its bodies may hold U+0000, which no text column can: queries run in Swift.
                prepared.fields = []
                prepared.queriesRunInSQL = false
            }
        case .failure(let mismatch):
            throw RepositoryError(
                .rejected,
                reason:
                    "\(table.quotedName) exists with another shape (\(shape.described)): \(mismatch.problem); PostgresRepository cannot keep its entities there, and left it unchanged",
                recovery:
                    "Pass another tableName in PostgresOptions, or move that table aside; the repository needs seq bigint GENERATED ALWAYS AS IDENTITY, id \(table.keyType) PRIMARY KEY, body jsonb NOT NULL, version bigint NOT NULL, and any other column nullable, defaulted or generated",
                location: location)
        }
        try await pool.perform(location: location) { connection in
            try connection.execute(script: table.createIndex)
        }
        let log = try await pool.perform(location: location) { connection in
            try PostgresTableShape(of: table.quotedLog, on: connection)
        }
        if !log.columns.isEmpty, let problem = table.logMismatch(log) {
            throw RepositoryError(
                .rejected,
                reason:
                    "\(table.quotedLog) exists with another shape (\(log.described)): \(problem); PostgresRepository cannot keep its change feed there, and left it unchanged",
                recovery:
                    "Pass another tableName in PostgresOptions, or move that table aside; the change log needs \(table.expectedLogShape)",
                location: location)
        }
        try await pool.perform(location: location) { connection in
            try connection.execute(script: table.createFeed)
        }
        return prepared
    }
}
