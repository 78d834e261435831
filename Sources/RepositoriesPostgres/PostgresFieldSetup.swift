import Repositories

/// Brings a table's field columns (``PostgresFieldColumn``) in step with the fields the
/// entity declares, when a repository opens: adds, fills and indexes the columns of new
/// fields, drops those of fields no longer declared, and makes again those whose type
/// changed.
///
/// A table already in step costs one catalog read and changes nothing, so a user who may only
/// read and write the table opens it. Otherwise everything runs in one transaction under the
/// table's advisory lock: the catalog is read again there (another instance may have done
/// the work), columns are added and every row filled from its body, decoded through the
/// migrations, before the indexes are made. A kill at any point leaves the table as it was;
/// a row that does not decode throws `decodingFailed` naming it, and nothing changes.
///
/// The columns carry a comment, `swift-repositories field: TYPE`, that marks them as the
/// repository's: a column without it is someone else's, and a field of its name is refused.
struct PostgresFieldSetup<Entity: Codable & Identifiable & Sendable>: Sendable
where Entity.ID: Codable & Sendable {
    let table: PostgresTable
    let pool: PostgresPool
    let coder: PostgresEntityCoder<Entity>
    let location: String

    /// What opening must change.
    struct Plan: Sendable {
        var drops: [String] = []
        var adds: [PostgresFieldColumn] = []
        /// Drop `fields_version`: the entity declares no field any more.
        var dropVersion = false
        /// (Re)add `fields_version` at 0, which marks every row as behind, to be filled.
        var resetVersion = false
        var indexes: [PostgresFieldColumn] = []
        var staleIndex = false

        var isEmpty: Bool {
            drops.isEmpty && adds.isEmpty && !dropVersion && !resetVersion && indexes.isEmpty && !staleIndex
        }
    }

    /// Changes what must change; returns the table, with whether its queries run in SQL.
    ///
    /// - Throws: `rejected` when a declared field's name is a column the repository did not
    ///   make; `decodingFailed` naming a row that does not decode (nothing changed).
    func prepare() async throws -> PostgresTable {
        var prepared = table
        let encoding = try await pool.perform(location: location) { connection in
            try connection.query("SHOW server_encoding").text(0, 0) ?? ""
        }
        let plan = try await pool.perform(location: location) { connection in try self.plan(on: connection) }
        // Text compares by code point only as UTF-8 bytes.
        prepared.queriesRunInSQL = table.queriesRunInSQL && encoding == "UTF8"
        guard !plan.isEmpty else { return prepared }
        try await pool.holding { connection in
            do {
                try await migrate(on: connection)
            } catch let error as PostgresError {
                await PostgresRepository<Entity>.rollBack(connection)
                throw error.repositoryError(location: location)
            } catch {
                await PostgresRepository<Entity>.rollBack(connection)
                throw error
            }
        }
        return prepared
    }

    private func migrate(on connection: PostgresConnection) async throws {
        let table = self.table
        let plan = try await connection.run { connection in
            try connection.execute(
                script:
                    "BEGIN; SELECT pg_advisory_xact_lock(hashtext('swift-repositories:' || \(table.literal(table.name))))"
            )
            return try self.plan(on: connection)
        }
        var script = plan.drops.map {
            "ALTER TABLE \(table.quotedName) DROP COLUMN \(SQLDialect.quoted($0));"
        }
        if plan.dropVersion || plan.resetVersion {
            script.append("ALTER TABLE \(table.quotedName) DROP COLUMN IF EXISTS fields_version;")
        }
        script += plan.adds.map(table.addColumn)
        if plan.resetVersion {
            // A constant default: PostgreSQL adds the column without rewriting the table.
            script.append(
                "ALTER TABLE \(table.quotedName) ADD COLUMN fields_version bigint NOT NULL DEFAULT 0;")
        }
        let ddl = script.joined(separator: "\n")
        if !ddl.isEmpty { try await connection.run { try $0.execute(script: ddl) } }
        if plan.resetVersion {
            let filler = PostgresFieldFiller(table: table, coder: coder)
            var after: PostgresKey?
            while true {
                try Task.checkCancellation()
                let from = after
                guard let last = try await connection.run({ try filler.fillBatch(on: $0, after: from) })
                else {
                    break
                }
                after = last
            }
        }
        var finish = plan.indexes.map(table.createIndex)
        if plan.staleIndex { finish.append(table.createStaleIndex) }
        finish.append("COMMIT;")
        let commit = finish.joined(separator: "\n")
        try await connection.run { try $0.execute(script: commit) }
    }

    /// What must change, from the catalog as `connection` sees it.
    private func plan(on connection: PostgresConnection) throws -> Plan {
        let result = try connection.query(PostgresTable.describeColumnsSQL, [table.quotedName])
        var types: [String: String] = [:]
        var recorded: [String: FieldType] = [:]
        for row in 0..<result.rowCount {
            let name = result.text(row, 0) ?? ""
            types[name] = result.text(row, 1) ?? ""
            let comment = result.text(row, 2) ?? ""
            if comment.hasPrefix(PostgresFieldColumn.commentPrefix) {
                let type = FieldType(
                    rawValue: String(comment.dropFirst(PostgresFieldColumn.commentPrefix.count)))
                // A column whose comment names no type is the repository's, and made again.
                recorded[name] = type ?? .bool
                if type == nil { types[name] = "" }
            }
        }
        let declared = table.fields
        if let foreign = declared.first(where: { types[$0.name] != nil && recorded[$0.name] == nil }) {
            throw RepositoryError(
                .rejected,
                reason:
                    "\(Entity.self) declares the field \(foreign.name), and \(table.quotedName) has a column \(foreign.name) (\(types[foreign.name] ?? "")) that PostgresRepository did not make; it left the table unchanged",
                recovery:
                    "Rename the field, or drop or rename the column; a field's column carries the comment '\(PostgresFieldColumn.commentPrefix)TYPE'",
                location: location)
        }
        var plan = Plan()
        let current = { (field: PostgresFieldColumn) in
            recorded[field.name] == field.type && types[field.name] == field.catalogType
        }
        plan.drops = recorded.keys.filter { name in !declared.contains { $0.name == name && current($0) } }
            .sorted()
        plan.adds = declared.filter { !current($0) }
        let hasVersion = types["fields_version"] != nil
        if declared.isEmpty {
            plan.dropVersion = hasVersion
            return plan
        }
        plan.resetVersion = !plan.adds.isEmpty || !hasVersion
        let missingIndex = { (name: String) in
            try connection.query("SELECT to_regclass($1) IS NULL", [SQLDialect.quoted(name)]).text(0, 0)
                == "t"
        }
        let adds = plan.adds
        plan.indexes = try declared.filter { field in
            if adds.contains(field) { return true }
            return try missingIndex(field.indexName(in: table.name))
        }
        if !plan.resetVersion { plan.staleIndex = try missingIndex(table.staleIndexName) }
        plan.staleIndex = plan.staleIndex || plan.resetVersion
        return plan
    }
}
