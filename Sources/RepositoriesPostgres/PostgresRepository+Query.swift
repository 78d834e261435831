import Foundation
import Repositories

extension PostgresRepository {
    /// Runs `query` in PostgreSQL as far as it can, and the rest in Swift.
    ///
    /// Conditions on declared fields (`Query.where(_:)`) become one prepared statement with
    /// bound parameters, answered from the fields' indexed columns (``PostgresFieldColumn``);
    /// when no closure filter follows and every sort key is a declared field, so do the order
    /// (ties in insertion order) and the offset and limit, so a list screen's "20 highest
    /// below a threshold" reads 20 rows. Closure filters and computed sort keys then run in
    /// Swift over the rows PostgreSQL gave. A query with no condition and nothing PostgreSQL
    /// can sort or page reads every entity, as ``fetchAll()`` does.
    ///
    /// The statement also asks whether any row's columns were left behind by a writer that
    /// does not know them (an earlier release, SQL of your own, a release that declares other
    /// fields): an index scan of an empty index when there are none. If any were, they are
    /// filled from their bodies and the statement runs again, on the same connection. Each
    /// row read is decoded and its field columns compared with its body: a column that
    /// disagrees throws `corrupted` naming the row, never a wrong answer.
    ///
    /// A date compares to the microsecond, as `timestamptz` keeps it: two dates less than
    /// half a microsecond apart are equal here.
    ///
    /// - Throws: `RepositoryError` `rejected` for a negative offset or limit, or a condition
    ///   on a property the entity does not declare, before any read; `corrupted` as above;
    ///   `decodingFailed` naming a row that does not decode.
    /// - Complexity: with an index on the first sort key or a selective condition,
    ///   O(log *n* + *k*) for *k* rows read.
    public func fetch(_ query: Query<Entity>) async throws -> [Entity] {
        try await fetch(query, on: self)
    }

    /// Returns how many entities `query` would return: PostgreSQL counts the rows its
    /// conditions select, on their indexes, without reading any row, and the offset and
    /// limit apply to that count. A query with closure filters counts what ``fetch(_:)``
    /// returns.
    ///
    /// - Throws: `RepositoryError` `rejected` as ``fetch(_:)`` does.
    public func count(_ query: Query<Entity>) async throws -> Int {
        try await count(query, on: self)
    }

    func fetch(_ query: Query<Entity>, on runner: some PostgresStatementRunner) async throws -> [Entity] {
        try query.validate()
        try Task.checkCancellation()
        guard let statement = try PostgresQuery(query, table: table) else {
            return try query.apply(to: await fetchAll(on: runner))
        }
        let (table, filler) = (table, filler)
        let rows = try await runner.perform { connection -> [PostgresQueryRow]? in
            // Rows behind their body are filled, and the statement run again; a writer that
            // keeps leaving rows behind meanwhile sends the query to Swift.
            for _ in 0..<3 {
                let result = try connection.execute(statement.select, statement.parameters + statement.window)
                let behind = result.rowCount > 0 && result.bytes(0, 0) == [1]
                let fieldCount = table.fields.count
                let rows = (0..<result.rowCount).compactMap { row -> PostgresQueryRow? in
                    guard !result.isNull(row, 1) else { return nil }  // nothing matched
                    return PostgresQueryRow(
                        key: table.key(in: result, row: row, column: 1),
                        body: table.storedBody(in: result, row: row, column: 2)
                            ?? PostgresStoredBody(bytes: [], schemaVersion: 1),
                        fields: (0..<fieldCount).map { result.bytes(row, 4 + $0) },
                        isCurrent: result.bytes(row, 4 + fieldCount) == [1])
                }
                guard behind || rows.contains(where: { !$0.isCurrent }), let filler else { return rows }
                try filler.fillAll(on: connection)
            }
            return nil
        }
        guard let rows else { return try query.apply(to: await fetchAll(on: runner)) }
        let entities = try checked(rows)
        return statement.isWindowed ? entities : try query.apply(to: entities)
    }

    func count(_ query: Query<Entity>, on runner: some PostgresStatementRunner) async throws -> Int {
        try query.validate()
        guard query.predicates.isEmpty, let statement = try PostgresQuery(query, table: table) else {
            return try await fetch(query, on: runner).count
        }
        try Task.checkCancellation()
        let filler = self.filler
        let matching = try await runner.perform { connection in
            var result = try connection.execute(statement.count, statement.parameters)
            if result.bytes(0, 0) == [1], let filler {
                try filler.fillAll(on: connection)
                result = try connection.execute(statement.count, statement.parameters)
            }
            return Int(result.int64(0, 1) ?? 0)
        }
        return query.finishedCount(matching: matching)
    }

    /// The lines of PostgreSQL's `EXPLAIN` for the statement `query` becomes, or none when it
    /// becomes none (it reads every row): for tests that check an index is used.
    package func queryPlan(_ query: Query<Entity>) async throws -> [String] {
        try query.validate()
        guard let statement = try PostgresQuery(query, table: table) else { return [] }
        return try await perform { connection in
            let result = try connection.query(
                "EXPLAIN " + statement.select.sql, types: statement.select.parameterTypes,
                statement.parameters + statement.window)
            return (0..<result.rowCount).map { result.text($0, 0) ?? "" }
        }
    }

    /// Runs `ANALYZE` on the table, so PostgreSQL's planner knows how selective each index is.
    package func analyze() async throws {
        let table = self.table
        try await perform { connection in try connection.execute(script: "ANALYZE \(table.quotedName)") }
    }

    /// Fills the field columns of rows a writer that does not know them left behind; `nil`
    /// when the entity declares no fields.
    var filler: PostgresFieldFiller<Entity>? {
        table.fields.isEmpty ? nil : PostgresFieldFiller(table: table, coder: coder)
    }

    /// The entities of `rows`, each decoded and its field columns checked against its body.
    ///
    /// A row's columns decide whether PostgreSQL selects it and where it sorts it; once they
    /// equal what its body says, the row is where the query puts it.
    ///
    /// - Throws: `corrupted` naming the first row, in order, whose columns disagree with its
    ///   body; `decodingFailed` naming one that does not decode.
    private func checked(_ rows: [PostgresQueryRow]) throws -> [Entity] {
        let fields = coder.fields
        return try rows.map { row in
            let entity = try decode(row.body, key: row.key)
            for index in fields.indices {
                let field = fields[index]
                let expected = try PostgresFieldColumn.binary(field.value(entity), field: field.name)
                guard row.fields[index] == expected else {
                    // Neither value is named: an error never shows an entity's content.
                    throw RepositoryError.corrupted(
                        "The row \(row.key?.description ?? "NULL") of the table: its column \(field.name) disagrees with its body",
                        location: location)
                }
            }
            return entity
        }
    }
}

/// A row a query selected: its key, its body as stored, its field columns' bytes in binary
/// format (`nil` for `NULL`), in the table's field order, and whether they were written for
/// its body by this declaration.
struct PostgresQueryRow: Sendable {
    var key: PostgresKey?
    var body: PostgresStoredBody
    var fields: [[UInt8]?]
    var isCurrent: Bool
}
