import Foundation
import Repositories

extension SQLiteRepository {
    /// Runs `query` in SQLite as far as it can, and the rest in Swift.
    ///
    /// Conditions on declared fields (`Query.where(_:)`) become one SQL statement with bound
    /// parameters, answered from the fields' indexed columns; when no closure filter follows
    /// and every sort key is a declared field, so do the order (ties in insertion order) and
    /// the offset and limit, so a list screen's "20 highest below a threshold" reads 20 rows.
    /// Closure filters and computed sort keys then run in Swift over the rows SQLite gave.
    /// A query with no condition and nothing SQLite can sort or page reads every entity, as
    /// ``fetchAll()`` does.
    ///
    /// Each row is checked against its `crc`, decoded, and its field columns (which decided
    /// whether SQLite selected it and where it sorted it) compared with its body: a column
    /// that disagrees throws `corrupted` naming the row, never a wrong answer.
    ///
    /// - Throws: `RepositoryError` `rejected` for a negative offset or limit, or a condition
    ///   on a property the entity does not declare, before any read; `corrupted` as above;
    ///   `decodingFailed` naming a row that does not decode.
    /// - Complexity: with an index on the first sort key or a selective condition,
    ///   O(log *n* + *k*) for *k* rows read.
    public func fetch(_ query: Query<Entity>) async throws -> [Entity] {
        try query.validate()
        try Task.checkCancellation()
        guard let statement = sqlQuery(query) else { return try query.apply(to: await fetchAll()) }
        let stored = try await database.storedRows(statement)
        let entities = try checked(stored, against: query)
        return statement.isWindowed ? entities : try query.apply(to: entities)
    }

    /// Returns how many entities `query` would return: SQLite counts the rows its conditions
    /// select, on their indexes, without reading any row, and the offset and limit apply to
    /// that count. A query with closure filters counts what ``fetch(_:)`` returns.
    ///
    /// - Throws: `RepositoryError` `rejected` as ``fetch(_:)`` does.
    public func count(_ query: Query<Entity>) async throws -> Int {
        try query.validate()
        guard query.predicates.isEmpty, let statement = sqlQuery(query) else {
            return try await fetch(query).count
        }
        try Task.checkCancellation()
        return query.finishedCount(matching: try await database.count(statement))
    }

    /// The lines of SQLite's `EXPLAIN QUERY PLAN` for the statement `query` becomes, or none
    /// when it becomes none (it reads every row): for tests that check an index is used.
    package func queryPlan(_ query: Query<Entity>) async throws -> [String] {
        try query.validate()
        guard let statement = sqlQuery(query) else { return [] }
        return try await database.plan(of: statement)
    }

    /// The statement `query` becomes, or `nil` when it runs in Swift over every entity (see
    /// ``SQLiteQuery``, and ``SQLiteDatabase/queriesRunInSQL``).
    private func sqlQuery(_ query: Query<Entity>) -> SQLiteQuery? {
        guard database.queriesRunInSQL else { return nil }
        return SQLiteQuery(query, table: database.table, variableLimit: database.variableLimit)
    }

    /// Runs `ANALYZE` on the table, so SQLite's planner knows how selective each index is.
    package func analyze() async throws {
        try await database.analyze()
    }

    /// The entities of `rows`, each row verified and decoded (on every processor when there
    /// are many), its field columns checked against its body's values and the entity against
    /// `query`'s conditions.
    ///
    /// A row's columns decide whether SQLite selects it and where it sorts it; once they
    /// equal what its body says, the row is where the query puts it.
    ///
    /// - Throws: `corrupted` naming the first row, in order, that fails its checksum or whose
    ///   columns disagree with its body.
    private func checked(_ rows: [SQLiteQueryRow], against query: Query<Entity>) throws -> [Entity] {
        let location = database.location
        let chunks = try ParallelChunks.map(
            count: rows.count, minimumChunk: SQLiteDecodingScan<Entity>.batchSize
        ) {
            chunk in
            try chunk.map { index -> Entity in
                let stored = rows[index].stored
                let entity = try decode(stored.verified(location: location))
                for (field, column) in zip(fields, rows[index].fields) where column != field.value(entity) {
                    // Neither value is named: an error never shows an entity's content.
                    throw stored.damage(
                        "its column \(field.name) disagrees with its body", location: location)
                }
                guard query.conditions.allSatisfy({ $0.matches(entity) }) else {
                    throw stored.damage(
                        "its field columns meet the query's conditions, its body does not", location: location
                    )
                }
                return entity
            }
        }
        return Array(chunks.joined())
    }
}
