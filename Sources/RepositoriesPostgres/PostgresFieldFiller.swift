import Repositories

/// Fills the field columns of rows whose columns are behind their body
/// (``PostgresTable/staleCondition``): every row, once, when opening adds a column;
/// afterwards only the rows a writer that does not know the columns wrote (an earlier
/// release, SQL of your own) or one that declares other fields.
///
/// A row's values come from its body, decoded through the migrations as a read decodes it.
/// Each row is written only while the transaction that wrote it (`xmin`) is still the one
/// read, so a write that commits meanwhile, even a delete and a create, is never overwritten;
/// such a row stays behind and is filled next time.
struct PostgresFieldFiller<Entity: Codable & Identifiable & Sendable>: Sendable
where Entity.ID: Codable & Sendable {
    let table: PostgresTable
    let coder: PostgresEntityCoder<Entity>

    /// Fills up to 1,000 rows behind, the first after `after` in key order (`nil`: from the
    /// first); returns the last key it read, or `nil` when there was none.
    ///
    /// - Throws: `decodingFailed` naming a row that does not decode; the server's errors.
    func fillBatch(on connection: PostgresConnection, after: PostgresKey?) throws -> PostgresKey? {
        let result = try connection.execute(
            table.staleRows(after: after != nil), after.map { [PostgresParameter($0)] } ?? [])
        guard result.rowCount > 0 else { return nil }
        var keys: [PostgresKey] = []
        var writers: [[UInt8]?] = []
        var values: [[[UInt8]?]] = []
        for row in 0..<result.rowCount {
            let key = table.key(in: result, row: row, column: 0)
            guard let key, let body = table.storedBody(in: result, row: row, column: 1),
                let writer = result.int64(row, 3)
            else { continue }
            let entity = try coder.decode(body.bytes, writtenBy: body.schemaVersion, key: key)
            keys.append(key)
            writers.append(PostgresParameter.bigEndian(writer))
            values.append(try coder.fieldColumns(of: entity, id: entity.id))
        }
        let last = table.key(in: result, row: result.rowCount - 1, column: 0)
        guard !keys.isEmpty else { return last }
        _ = try connection.execute(
            table.fillFields,
            [
                PostgresParameter(keys: keys, integer: table.integerKeys),
                PostgresParameter(array: writers, elementType: PostgresParameter.int8),
            ] + table.fieldArrayParameters(values))
        return last
    }

    /// Fills every row behind, batch after batch.
    func fillAll(on connection: PostgresConnection) throws {
        var after: PostgresKey?
        while let last = try fillBatch(on: connection, after: after) { after = last }
    }
}
