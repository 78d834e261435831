import Repositories

/// Brings a table's field columns (``PostgresFieldColumn``) in step with the fields the
/// entity declares, when a repository opens: adds, fills and indexes the columns of new
/// fields, and makes again those whose type changed. The column of a field no longer
/// declared is left as it is (an instance of another release may still write it; drop it
/// with SQL once none does): nothing reads it, and its values fall behind.
///
/// A table already in step costs one catalog read and no DDL, so a user who may only read
/// and write the table opens it. Otherwise everything runs in one transaction under the
/// table's advisory lock: the catalog is read again there (another instance may have done
/// the work), columns are added and every row filled from its body, decoded through the
/// migrations, before the indexes are made and the statistics gathered. A kill before the
/// commit leaves the table as it was; a row that does not decode throws `decodingFailed`
/// naming it, and nothing changes. After the commit the table is vacuumed.
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
        /// Columns of declared fields whose type changed.
        var drops: [String] = []
        var adds: [PostgresFieldColumn] = []
        /// (Re)add `fields_version` and `fields_declaration` empty, which marks every row as
        /// behind, to be filled, and drops the stale-row indexes of other declarations.
        var resetStamps = false
        var indexes: [PostgresFieldColumn] = []

        var isEmpty: Bool { drops.isEmpty && adds.isEmpty && !resetStamps && indexes.isEmpty }
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
        let (plan, opened) = try await connection.run { connection in
            try connection.execute(
                script:
                    "BEGIN; SELECT pg_advisory_xact_lock(hashtext('swift-repositories:' || \(table.literal(table.name))))"
            )
            let opened = try connection.query(script: table.openedVersion).text(0, 0).flatMap { Int($0) } ?? 1
            return (try self.plan(on: connection), opened)
        }
        // A newer version of the entity opened the table: leave its columns alone.
        if opened > table.schemaVersion {
            throw RepositoryError.writtenByNewerVersion(
                opened, knownVersion: table.schemaVersion, location: location)
        }
        var script = plan.drops.map {
            "ALTER TABLE \(table.quotedName) DROP COLUMN \(SQLDialect.quoted($0));"
        }
        if plan.resetStamps {
            script.append(
                "ALTER TABLE \(table.quotedName) DROP COLUMN IF EXISTS fields_behind, DROP COLUMN IF EXISTS fields_version, DROP COLUMN IF EXISTS fields_declaration;"
            )
        }
        script += plan.adds.map(table.addColumn)
        if plan.resetStamps {
            // Without defaults; the stored generated column rewrites the table once, before
            // the fill writes every row anyway.
            script.append(
                "ALTER TABLE \(table.quotedName) "
                    + PostgresTable.stampColumns.map { "ADD COLUMN " + $0 }.joined(separator: ", ") + ";")
        }
        let ddl = script.joined(separator: "\n")
        if !ddl.isEmpty { try await connection.run { try $0.execute(script: ddl) } }
        // Whether any row was filled: an empty table needs no statistics and no vacuum.
        var filled = false
        if plan.resetStamps {
            let filler = PostgresFieldFiller(table: table, coder: coder)
            var after: PostgresKey?
            while true {
                try Task.checkCancellation()
                let from = after
                guard let last = try await connection.run({ try filler.fillBatch(on: $0, after: from) })
                else {
                    break
                }
                (after, filled) = (last, true)
            }
        }
        var finish = plan.indexes.map(table.createIndex)
        if plan.resetStamps { finish.append(table.createStaleIndex) }
        // Without statistics of the new columns, the planner expects most rows to be behind
        // and scans the table to find none.
        if filled { finish.append("ANALYZE \(table.quotedName)") }
        finish.append("COMMIT")
        let commit = finish.joined(separator: ";\n")
        try await connection.run { try $0.execute(script: commit) }
        if filled {
            // The fill left a dead version of every row, which the stale-row index still
            // points at until a vacuum: each query's check for rows behind would read them
            // all until autovacuum comes by. The migration has committed, so a vacuum that
            // fails (a statement timeout, a lost connection) changes nothing the open must
            // report: autovacuum does the same work later.
            let vacuum = "VACUUM \(table.quotedName)"
            do {
                try await connection.run { try $0.execute(script: vacuum) }
            } catch is PostgresError {
                // Left to autovacuum, as above.
            }
        }
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
        // An entity that declares nothing leaves the columns to those that do.
        guard !declared.isEmpty else { return plan }
        let current = { (field: PostgresFieldColumn) in
            recorded[field.name] == field.type && types[field.name] == field.catalogType
        }
        plan.drops = declared.filter { recorded[$0.name] != nil && !current($0) }.map(\.name)
        plan.adds = declared.filter { !current($0) }
        let missingIndex = { (name: String) in
            try connection.query("SELECT to_regclass($1) IS NULL", [SQLDialect.quoted(name)]).text(0, 0)
                == "t"
        }
        // This declaration's stale-row index is made when its stamps are: without it, the
        // rows were last filled for another declaration, or never.
        let unstamped =
            types["fields_version"] == nil || types["fields_declaration"] == nil
            || types["fields_behind"] == nil
        let indexMissing = try missingIndex(table.staleIndexName)
        plan.resetStamps = !plan.adds.isEmpty || unstamped || indexMissing
        let adds = plan.adds
        plan.indexes = try declared.filter { field in
            if adds.contains(field) { return true }
            return try missingIndex(field.indexName(in: table.name))
        }
        return plan
    }
}
