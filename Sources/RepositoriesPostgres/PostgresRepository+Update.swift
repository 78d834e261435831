import Repositories

extension PostgresRepository {
    /// Changes the entity stored under `id` while holding its row: reads it with
    /// `SELECT … FOR UPDATE` in a transaction, applies `change`, writes the result and commits.
    /// Another writer's update of the same row waits for the commit and then changes what this
    /// one wrote, so nothing is lost and no attempt is wasted on a conflict, however many
    /// instances contend (a conflict-and-retry loop lets a fast writer starve a slower one).
    ///
    /// ```swift
    /// try await inventory.update(id: sku) { $0.stock -= 1 }
    /// ```
    ///
    /// The row stays locked while `change` runs, so keep it short and free of waits. When the
    /// connection is lost before the commit, nothing was written and the update runs again
    /// (`change` too, on a fresh copy), up to `attempts` times; when it is lost during the
    /// commit, PostgreSQL says whether the transaction committed. A throw from `change`, a
    /// changed ID, an entity that cannot be encoded, or a cancellation rolls back with nothing
    /// written.
    ///
    /// - Throws: `RepositoryError` `notFound` when no row has the ID; `rejected` when `change`
    ///   changed the ID; `encodingFailed`; `unavailable` when the connection was lost at every
    ///   attempt; what `change` throws; `CancellationError`.
    @discardableResult
    public func update(id: ID, attempts: Int, _ change: (inout Entity) throws -> Void) async throws -> Entity
    {
        let key = try key(for: id)
        for _ in 0..<max(1, attempts) {
            switch try await updateHoldingTheRow(key, id: id, change) {
            case .wrote(let entity):
                announce([key])
                return entity
            case .lost(let committing, let entity):
                if let committing, let entity, try await committed(committing) {
                    announce([key])
                    return entity
                }
            }
        }
        throw RepositoryError.unavailable(
            "PostgreSQL lost the connection at each of \(max(1, attempts)) attempts to update the entity \(id); it was not written",
            location: location)
    }

    /// What became of one locked update.
    private enum LockedUpdate: Sendable {
        /// Committed, with the entity written.
        case wrote(Entity)
        /// The connection was lost; the transaction's ID and the entity when the commit may
        /// have been sent.
        case lost(committing: String?, Entity?)
    }

    private func updateHoldingTheRow(_ key: PostgresKey, id: ID, _ change: (inout Entity) throws -> Void)
        async throws -> LockedUpdate
    {
        let (lock, write, table) = (table.fetchLocked, table.replaceIfVersion, table)
        return try await pool.holding { connection in
            var committing: String?
            var written: Entity?
            do {
                let (transaction, row) = try await connection.run { connection in
                    let begun = try connection.query(script: "BEGIN; SELECT pg_current_xact_id()::text")
                    let result = try connection.execute(lock, [PostgresParameter(key)])
                    guard result.rowCount == 1, let body = table.storedBody(in: result, row: 0, column: 0),
                        let version = result.int64(0, 2)
                    else { return (begun.text(0, 0), VersionedRow?.none) }
                    return (begun.text(0, 0), VersionedRow(body: body, version: version))
                }
                var entity: Entity
                do {
                    guard let row else { throw RepositoryError.notFound(id: id) }
                    entity = try decode(row.body, key: key)
                    try change(&entity)
                    guard entity.id == id else {
                        throw RepositoryError.rejected(
                            "update(id:_:) was given a change that replaced the ID \(id) with \(entity.id)",
                            recovery:
                                "Change the entity's other properties; save a copy under a new ID with save(_:)"
                        )
                    }
                    let (_, encoded) = try encode(entity)
                    let parameters =
                        [
                            PostgresParameter(key), PostgresParameter(bytes: encoded.body),
                            PostgresParameter(bytes: PostgresParameter.bigEndian(row.version)),
                        ] + table.fieldParameters(encoded.fields)
                    // From here the commit may be sent: a lost connection asks whether it landed.
                    (committing, written) = (transaction, entity)
                    try await connection.run { connection in
                        // The row is locked, so its version cannot have moved.
                        _ = try connection.execute(write, parameters)
                        try connection.execute(script: "COMMIT")
                    }
                } catch let error as PostgresError {
                    throw error
                } catch {
                    await Self.rollBack(connection)
                    throw error
                }
                return .wrote(entity)
            } catch let error as PostgresError where error.connectionLost && !error.failedToConnect {
                return .lost(committing: committing, written)
            } catch let error as PostgresError {
                throw error.repositoryError(location: location)
            }
        }
    }

    /// Ends the transaction a Swift error (or a cancellation) left open on `connection`, in a
    /// task of its own, since a cancelled task's call would not run.
    static func rollBack(_ connection: PostgresConnection) async {
        await Task {
            do {
                try await connection.run { try $0.execute(script: "ROLLBACK") }
            } catch {
                // A connection that cannot roll back was lost, which ends the transaction too.
            }
        }.value
    }
}
