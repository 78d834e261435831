import Foundation
import Repositories

/// Optimistic concurrency: every row's `version` (1 when inserted, one more at each
/// replace) is the entity's tag, as an HTTP `ETag` is, and a write can be made on it.
///
/// ```swift
/// guard let current = try await items.fetchTagged(id: 7), let tag = current.tag else { … }
/// var item = current.entity
/// item.stock -= 1
/// try await items.save(item, ifMatch: tag)   // conflict if another instance wrote item 7 meanwhile
///
/// try await items.update(id: 7) { $0.stock -= 1 }   // the same, read again and retried on conflict
/// ```
///
/// Each conditional write is one statement: it writes only while the row still has the
/// version named (or, for ``saveIfAbsent(_:)``, while there is no row), with its change-log
/// entry and its notification, so it is all or nothing. A conditional write is never sent
/// again blindly after a lost connection, since a resend of one that committed would meet
/// its own version and fail: the repository asks PostgreSQL first, and takes the write as
/// done when its transaction committed, sends it again while the condition still holds, and
/// throws `conflict` otherwise.
extension PostgresRepository: VersionTaggingRepository {
    /// The entity stored under `id` with its version's tag (`"3"`, quotes included), or `nil`.
    ///
    /// - Throws: as ``fetch(id:)``.
    public func fetchTagged(id: ID) async throws -> TaggedEntity<Entity>? {
        let key = try key(for: id)
        guard let row = try await versionedRow(key) else { return nil }
        return TaggedEntity(try decode(row.body, key: key), tag: "\"\(row.version)\"")
    }

    /// Replaces the entity stored under `entity.id` if its row still has the version `tag`
    /// names.
    ///
    /// - Throws: `RepositoryError` `conflict` when the row was written or deleted since
    ///   (nothing was written); `rejected` when `tag` is not one this repository gives.
    public func save(_ entity: Entity, ifMatch tag: String) async throws {
        let version = try Self.version(in: tag, for: entity.id)
        let (key, row) = try encode(entity)
        let wrote = try await writeConditionally(
            table.replaceIfVersion,
            [
                PostgresParameter(key), PostgresParameter(bytes: row.body),
                PostgresParameter(bytes: version.bytes),
            ] + table.fieldParameters(row.fields),
            key: key, stillPossible: { $0?.version == version.value })
        guard wrote else {
            throw Self.moved(entity.id, "was written or deleted since version \(version.value) was read")
        }
    }

    /// Inserts `entity` only if no row has its ID.
    ///
    /// - Throws: `RepositoryError` `conflict` when a row has the ID (nothing was written).
    public func saveIfAbsent(_ entity: Entity) async throws {
        let (key, row) = try encode(entity)
        let wrote = try await writeConditionally(
            table.insertIfAbsent,
            [PostgresParameter(key), PostgresParameter(bytes: row.body)]
                + table.fieldParameters(row.fields),
            key: key, stillPossible: { $0 == nil })
        guard wrote else { throw Self.moved(entity.id, "exists already") }
    }

    /// Deletes the entity stored under `id` if its row still has the version `tag` names; a
    /// row already gone is no error.
    ///
    /// - Throws: `RepositoryError` `conflict` when the row was written since (nothing was
    ///   deleted); `rejected` when `tag` is not one this repository gives.
    public func delete(id: ID, ifMatch tag: String) async throws {
        let version = try Self.version(in: tag, for: id)
        let key = try key(for: id)
        let deleted = try await writeConditionally(
            table.deleteIfVersion, [PostgresParameter(key), PostgresParameter(bytes: version.bytes)],
            key: key, stillPossible: { $0?.version == version.value })
        if !deleted, try await versionedRow(key) != nil {
            throw Self.moved(id, "was written since version \(version.value) was read")
        }
    }

    // MARK: Running conditional writes

    /// A row's body and version.
    struct VersionedRow: Sendable {
        var body: PostgresStoredBody
        var version: Int64
    }

    /// The row of `key`, or `nil`.
    func versionedRow(_ key: PostgresKey) async throws -> VersionedRow? {
        let (statement, table) = (table.fetchVersioned, table)
        return try await perform { connection in
            let result = try connection.execute(statement, [PostgresParameter(key)])
            guard result.rowCount == 1, let body = table.storedBody(in: result, row: 0, column: 0),
                let version = result.int64(0, 2)
            else {
                return nil
            }
            return VersionedRow(body: body, version: version)
        }
    }

    /// Runs a conditional write; whether it wrote. It runs in a transaction of its own whose
    /// ID it reads first, and commits only when the write changed a row. When the connection
    /// is lost, the outcome is known without guessing from the row's content (two writers
    /// adding one to the same quantity write the same body): lost before the commit was sent,
    /// nothing was written; lost during the commit, PostgreSQL says whether that transaction
    /// committed (`pg_xact_status`). What was not written is sent again, once, while
    /// `stillPossible` holds for the row as it is now.
    private func writeConditionally(
        _ statement: PostgresStatement, _ parameters: [PostgresParameter], key: PostgresKey,
        stillPossible: (VersionedRow?) -> Bool
    ) async throws -> Bool {
        for _ in 0..<2 {
            switch try await sendInTransaction(statement, parameters) {
            case .wrote:
                announce([key])
                return true
            case .refused: return false
            case .lost(let committing):
                if let committing, try await committed(committing) {
                    announce([key])
                    return true
                }
                guard stillPossible(try await versionedRow(key)) else { return false }
            }
        }
        throw RepositoryError.unavailable(
            "PostgreSQL lost the connection twice while a conditional write was sent; it was not written",
            location: location)
    }

    /// What became of a conditional write sent in its own transaction.
    private enum ConditionalOutcome: Sendable {
        /// Committed: it changed a row.
        case wrote
        /// Rolled back: its condition stopped it.
        case refused
        /// The connection was lost; the ID of the transaction when its commit had been sent.
        case lost(committing: String?)
    }

    /// `BEGIN` with the transaction's ID, the statement, and `COMMIT` when it changed a row
    /// (else `ROLLBACK`), on one pooled connection.
    private func sendInTransaction(_ statement: PostgresStatement, _ parameters: [PostgresParameter])
        async throws -> ConditionalOutcome
    {
        try Task.checkCancellation()
        do {
            return try await pool.run { connection in
                var committing: String?
                do {
                    let begun = try connection.query(script: "BEGIN; SELECT pg_current_xact_id()::text")
                    let transaction = begun.text(0, 0)
                    let wrote = try connection.execute(statement, parameters).rowCount == 1
                    if wrote { committing = transaction }
                    try connection.execute(script: wrote ? "COMMIT" : "ROLLBACK")
                    return wrote ? .wrote : .refused
                } catch let error as PostgresError where error.connectionLost && !error.failedToConnect {
                    return .lost(committing: committing)
                }
            }
        } catch let error as PostgresError {
            throw error.repositoryError(location: location)
        }
    }

    /// Whether the transaction `id`, whose commit was sent before its connection was lost,
    /// committed: asked until PostgreSQL knows (a backend whose client is gone ends its
    /// transaction once the server notices), for up to a minute.
    func committed(_ id: String) async throws -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .seconds(60))
        while true {
            let status = try await perform { connection in
                try connection.query("SELECT pg_xact_status($1::xid8)", [id]).text(0, 0)
            }
            switch status {
            case "committed": return true
            case "aborted": return false
            default:
                guard clock.now < deadline else {
                    throw RepositoryError.unavailable(
                        "PostgreSQL lost the connection while a conditional write was committing, and after a minute still cannot say whether it committed (transaction \(id))",
                        location: location)
                }
                try await Task.sleep(for: .milliseconds(50))
            }
        }
    }

    // MARK: Tags

    /// A version read from a tag, and its bytes as an `int8` parameter.
    struct TaggedVersion {
        var value: Int64
        var bytes: [UInt8] { PostgresParameter.bigEndian(value) }
    }

    /// The version `tag` names: `"3"`, `W/"3"` or `3`.
    static func version(in tag: String, for id: ID) throws -> TaggedVersion {
        var text = Substring(tag.trimmingCharacters(in: .whitespaces))
        if text.hasPrefix("W/") { text = text.dropFirst(2) }
        if text.count >= 2, text.first == "\"", text.last == "\"" { text = text.dropFirst().dropLast() }
        guard let value = Int64(text), value > 0 else {
            throw RepositoryError.rejected(
                "The tag \(tag.prefix(40)) given for ID \(id) is not a version PostgresRepository gives",
                recovery: "Pass the tag fetchTagged(id:) returned, such as \"3\"")
        }
        return TaggedVersion(value: value)
    }

    /// `conflict`: the row of `id` `what`; nothing was written.
    static func moved(_ id: ID, _ what: String) -> RepositoryError {
        var error = RepositoryError.conflict("The entity \(what); nothing was written", id: "\(id)")
        error.recovery =
            "Read it again with fetchTagged(id:) and apply the change to what it holds now, or use update(id:_:), which does"
        return error
    }
}
