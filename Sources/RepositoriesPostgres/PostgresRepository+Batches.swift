import Foundation
import Repositories

extension PostgresRepository {
    /// Saves every entity of `entities` in one statement, so one transaction: all of them,
    /// or none.
    ///
    /// Every entity is encoded before the server is asked, so an entity that cannot be
    /// encoded throws `encodingFailed` and writes nothing. With a repeated ID, the later
    /// entity wins, in the place of the first. New entities take places in the batch's order.
    ///
    /// - Complexity: one round trip; the IDs and bodies travel as two arrays.
    public func save(contentsOf entities: [Entity]) async throws {
        try await save(contentsOf: entities, on: self)
    }

    func save(contentsOf entities: [Entity], on runner: some PostgresStatementRunner) async throws {
        var order: [PostgresKey] = []
        var rows: [PostgresKey: PostgresEncodedRow] = Dictionary(minimumCapacity: entities.count)
        for entity in entities {
            let (key, row) = try encode(entity)
            if rows.updateValue(row, forKey: key) == nil { order.append(key) }
        }
        try await runner.upsert(order.compactMap { key in rows[key].map { (key, $0) } }, into: table)
    }

    /// Returns the entities stored under `ids`, in the order of `ids`, skipping absent and
    /// repeated IDs: one `SELECT … WHERE id = ANY($1)`, one consistent snapshot.
    ///
    /// - Throws: `RepositoryError` `decodingFailed` naming the first row that does not decode.
    public func fetch(ids: [ID]) async throws -> [Entity] {
        try await fetch(ids: ids, on: self)
    }

    func fetch(ids: [ID], on runner: some PostgresStatementRunner) async throws -> [Entity] {
        let keys = try distinctKeys(ids)
        guard !keys.isEmpty else { return [] }
        let (statement, table) = (table.fetchIDs, table)
        let parameter = PostgresParameter(keys: keys, integer: table.integerKeys)
        let rows = try await runner.perform { connection in
            let result = try connection.execute(statement, [parameter])
            return (0..<result.rowCount).compactMap { row -> (PostgresKey, PostgresStoredBody)? in
                guard let key = table.key(in: result, row: row, column: 0),
                    let body = table.storedBody(in: result, row: row, column: 1)
                else { return nil }
                return (key, body)
            }
        }
        let bodies = Dictionary(rows, uniquingKeysWith: { first, _ in first })
        return try keys.compactMap { key in try bodies[key].map { try decode($0, key: key) } }
    }

    /// Removes the entities stored under `ids`, skipping absent ones, in one statement however
    /// long the list: all of them go, or (on an error) none.
    public func delete(ids: [ID]) async throws {
        try await delete(ids: ids, on: self)
    }

    func delete(ids: [ID], on runner: some PostgresStatementRunner) async throws {
        let keys = try distinctKeys(ids)
        guard !keys.isEmpty else { return }
        let (statement, table) = (table.deleteMany, table)
        let parameter = PostgresParameter(keys: keys, integer: table.integerKeys)
        let changed = try await runner.perform { connection in
            table.changedKeys(in: try connection.execute(statement, [parameter]))
        }
        runner.announce(changed)
    }

    /// The keys of `ids`, first appearances only, in order.
    private func distinctKeys(_ ids: [ID]) throws -> [PostgresKey] {
        var seen = Set<PostgresKey>(minimumCapacity: ids.count)
        var keys: [PostgresKey] = []
        keys.reserveCapacity(ids.count)
        for id in ids {
            let key = try key(for: id)
            if seen.insert(key).inserted { keys.append(key) }
        }
        return keys
    }
}
