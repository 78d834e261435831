import Foundation
import Repositories

extension SQLiteRepository {
    /// Saves every entity of `entities` in one transaction: all of them, or none.
    ///
    /// Every entity is encoded before the database is touched, so an entity that cannot be
    /// encoded throws `encodingFailed` and writes nothing. Any SQLite error rolls the whole
    /// batch back. With a repeated ID, the later entity wins, in the place of the first.
    ///
    /// - Complexity: O(*m* log *n*) for *m* entities; one commit (one fsync) for the batch.
    public func save(contentsOf entities: [Entity]) async throws {
        try Task.checkCancellation()
        let rows = try entities.map(encode)
        try await database.submit(.upsertAll(rows))
    }

    /// Returns the entities stored under `ids`, in the order of `ids`, skipping absent and
    /// repeated IDs.
    ///
    /// Runs as `SELECT … WHERE id IN (…)`, split into chunks within SQLite's parameter limit
    /// and read in one transaction, so the answer is one consistent snapshot.
    ///
    /// - Throws: `RepositoryError` `corrupted` when a row fails its checksum or the `id`
    ///   index leads to a row of an ID not asked for; `decodingFailed` naming the first row
    ///   that does not decode.
    /// - Complexity: O(*m* log *n*) for *m* IDs.
    public func fetch(ids: [ID]) async throws -> [Entity] {
        try Task.checkCancellation()
        let keys = try distinctKeys(ids)
        let stored = try await database.storedRows(for: keys)
        var rows: [SQLiteKey: SQLiteRow] = Dictionary(minimumCapacity: stored.count)
        let asked = Set(keys)
        for candidate in stored {
            let row = try candidate.verified(location: database.location)
            guard asked.contains(row.key), rows.updateValue(row, forKey: row.key) == nil else {
                throw candidate.damage(
                    "the ID index leads another ID, or this ID twice, to it", location: database.location)
            }
        }
        var found: [Entity] = []
        found.reserveCapacity(rows.count)
        for key in keys {
            guard let row = rows[key] else { continue }
            found.append(try decode(row))
        }
        return found
    }

    /// Removes the entities stored under `ids`, skipping absent ones, in one transaction
    /// however long the list: all of them go, or (on an error) none.
    ///
    /// - Complexity: O(*m* log *n*) for *m* IDs.
    public func delete(ids: [ID]) async throws {
        try Task.checkCancellation()
        try await database.submit(.delete(distinctKeys(ids)))
    }

    /// The keys of `ids`, first appearances only, in order.
    func distinctKeys(_ ids: [ID]) throws -> [SQLiteKey] {
        var seen = Set<ID>(minimumCapacity: ids.count)
        var keys: [SQLiteKey] = []
        keys.reserveCapacity(ids.count)
        for id in ids where seen.insert(id).inserted {
            keys.append(try key(for: id))
        }
        return keys
    }
}
