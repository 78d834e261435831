import Repositories

extension PostgresRepository {
    /// Upgrades every row an older version of the entity wrote, when this repository's
    /// ``Migrations`` are newer than any that opened the table before: in one transaction
    /// under the table's advisory lock, 500 rows at a time, each decoded as the version that
    /// wrote it, upgraded, and written back with its `version` counted and its change logged
    /// for the feed. Then the table records the version, so later opens skip the scan.
    ///
    /// A process killed during the upgrade leaves every row as it was (the transaction never
    /// committed); the next open starts again.
    ///
    /// - Throws: `writtenByNewerVersion` when a newer version has opened the table (nothing is
    ///   changed); `decodingFailed` naming the first row no upgrade reads, or `encodingFailed`,
    ///   with nothing upgraded.
    func upgradeRows() async throws {
        let table = self.table
        let opened = try await perform { connection in
            try connection.query(table.openedVersion).text(0, 0).flatMap { Int($0) } ?? 1
        }
        if opened > table.schemaVersion {
            throw RepositoryError.writtenByNewerVersion(
                opened, knownVersion: table.schemaVersion, location: location)
        }
        guard opened < table.schemaVersion else { return }
        try await pool.holding { connection in
            do {
                try await upgrade(on: connection)
            } catch let error as PostgresError {
                await Self.rollBack(connection)
                throw error.repositoryError(location: location)
            } catch {
                await Self.rollBack(connection)
                throw error
            }
        }
    }

    private func upgrade(on connection: PostgresConnection) async throws {
        let table = self.table
        let opened = try await connection.run { connection in
            try connection.query(script: table.beginUpgrade).text(0, 0).flatMap { Int($0) } ?? 1
        }
        if opened > table.schemaVersion {
            throw RepositoryError.writtenByNewerVersion(
                opened, knownVersion: table.schemaVersion, location: location)
        }
        var upgraded = 0
        while true {
            try Task.checkCancellation()
            let rows = try await connection.run { connection in
                let result = try connection.execute(table.olderRows, [])
                return (0..<result.rowCount).compactMap { row -> (PostgresKey, PostgresStoredBody)? in
                    guard let key = table.key(in: result, row: row, column: 0),
                        let body = table.storedBody(in: result, row: row, column: 1)
                    else { return nil }
                    return (key, body)
                }
            }
            if rows.isEmpty { break }
            var upgradedRows: [PostgresEncodedRow] = []
            for (key, stored) in rows {
                upgradedRows.append(try encode(try decode(stored, key: key)).1)
            }
            let keys = PostgresParameter(keys: rows.map(\.0), integer: table.integerKeys)
            let values = PostgresParameter(
                array: upgradedRows.map(\.body), elementType: PostgresParameter.bytea)
            let fields = table.fieldArrayParameters(upgradedRows.map(\.fields))
            try await connection.run { connection in
                _ = try connection.execute(table.upgradeBodies, [keys, values] + fields)
            }
            upgraded += rows.count
        }
        let finish = table.finishUpgrade
        try await connection.run { connection in try connection.execute(script: finish) }
        self.upgraded.withLock { $0 = upgraded }
        if upgraded > 0 { announceEverything() }
    }
}
