import Foundation
import Repositories

extension PostgresRepository: IdempotentWriteRepository {
    /// Applies `write` unless `idempotencyKey` was applied before, in one statement that
    /// writes the entity row, logs the change for the feed and keeps the key (in the table
    /// `<table>_keys`) with what the write did: all or nothing. A key applied before writes
    /// nothing and answers from its record, also after a restart of the service, and also
    /// when the first request's answer was lost with its connection and the statement is sent
    /// again.
    ///
    /// - Throws: `encodingFailed` naming the entity (nothing written); `decodingFailed` when
    ///   a replayed record's entity no longer decodes; `unavailable` when the server cannot be
    ///   reached.
    /// - Complexity: one round trip (two when another request with the same new key commits
    ///   first).
    public func apply(_ write: KeyedWrite<Entity, ID>, idempotencyKey: String, fingerprint: String)
        async throws
        -> KeyedWriteResult<Entity>
    {
        let statement: PostgresStatement
        var parameters: [PostgresParameter]
        let entity: Entity?
        let key: PostgresKey
        switch write {
        case .save(let saved), .create(let saved):
            let (savedKey, row) = try encode(saved)
            if case .save = write { statement = table.keyedSave } else { statement = table.keyedCreate }
            parameters =
                [PostgresParameter(savedKey), PostgresParameter(bytes: row.body)]
                + table.fieldParameters(row.fields)
            (entity, key) = (saved, savedKey)
        case .delete(let id):
            key = try self.key(for: id)
            statement = table.keyedDelete
            parameters = [PostgresParameter(key)]
            entity = nil
        }
        parameters.insert(
            contentsOf: [PostgresParameter(.text(idempotencyKey)), PostgresParameter(.text(fingerprint))],
            at: 1)
        let sent = parameters
        while true {
            let answer = try await perform { connection -> KeyedAnswer? in
                do {
                    let result = try connection.execute(statement, sent)
                    return KeyedAnswer(
                        applied: result.text(0, 0), fingerprint: result.text(0, 1),
                        recorded: result.text(0, 2),
                        body: result.bytes(0, 3), changedRows: result.int64(0, 4) ?? 0)
                } catch let error as PostgresError where error.sqlState == PostgresError.uniqueViolation {
                    // Another request with this new key committed first: ask again, and
                    // answer from its record.
                    return nil
                }
            }
            guard let answer else { continue }
            if let applied = answer.applied {
                if answer.changedRows > 0 { announce([key]) }
                let outcome = try self.outcome(applied, key: key)
                let stored = outcome == .created || outcome == .replaced ? entity : nil
                return KeyedWriteResult(
                    outcome: outcome, stored: stored, replayed: false, fingerprint: fingerprint)
            }
            guard let recorded = answer.recorded else {
                throw RepositoryError.corrupted(
                    "The keyed write of \(key) under idempotency key \(idempotencyKey) neither applied nor found the key's record",
                    location: location)
            }
            return KeyedWriteResult(
                outcome: try outcome(recorded, key: key),
                // The key's record holds the body this version of the entity sent.
                stored: try answer.body.map {
                    try decode(PostgresStoredBody(bytes: $0, schemaVersion: coder.schemaVersion), key: key)
                },
                replayed: true, fingerprint: answer.fingerprint ?? "")
        }
    }

    /// Drops the idempotency keys applied longer ago than `age`; a request sent again after
    /// that is applied again. Keep them longer than any client retries (a device may be
    /// offline for weeks: the outbox resends with the same key when it comes back).
    ///
    /// - Returns: how many keys were dropped.
    @discardableResult
    public func pruneIdempotencyKeys(olderThan age: Duration) async throws -> Int {
        let microseconds =
            max(0, age.components.seconds) * 1_000_000 + max(0, age.components.attoseconds)
            / 1_000_000_000_000
        let statement = table.pruneKeys
        return try await perform { connection in
            let result = try connection.execute(statement, [PostgresParameter(.integer(microseconds))])
            return Int(result.int64(0, 0) ?? 0)
        }
    }

    private func outcome(_ text: String, key: PostgresKey) throws -> KeyedWriteOutcome {
        guard let outcome = KeyedWriteOutcome(rawValue: text) else {
            throw RepositoryError.corrupted(
                "The idempotency key record of \(key) holds the outcome \"\(text)\", which this version does not know",
                location: location)
        }
        return outcome
    }
}

/// One row of a keyed write statement: the outcome it applied, or the key's record.
private struct KeyedAnswer: Sendable {
    var applied: String?
    var fingerprint: String?
    var recorded: String?
    var body: [UInt8]?
    /// How many rows the write changed.
    var changedRows: Int64
}
