import Foundation
import Repositories

/// The columns of the entity's declared fields (see ``SQLiteFieldColumn``): recorded, made,
/// filled, indexed and dropped as the entity's declaration changes.
///
/// Which field columns a table has is recorded in a table the file shares:
///
/// ```sql
/// CREATE TABLE "repositories_entity_fields" (
///     table_name TEXT NOT NULL COLLATE NOCASE,  -- the repository's table, as SQLite matches its name
///     name TEXT NOT NULL,        -- the field, and its column
///     type TEXT NOT NULL,        -- FieldType: bool, integer, double, text, date
///     PRIMARY KEY (table_name, name)
/// )
/// ```
///
/// Opening accepts a table's columns past `crc` only when they are exactly the recorded
/// ones, so a column someone else added is refused (`rejected`), never written over. Each
/// column has the index `repositories_field_TABLE.NAME`.
///
/// When the entity declares a field the table lacks, opening adds the column, fills it from
/// every row's body (decoded through the migrations at the version that wrote it), makes its
/// index and records it; a column whose field is no longer declared, or whose type changed,
/// is dropped with its index. All of it in one transaction, after every row is checked and
/// decoded and before anything is written, so after a crash or a row that does not decode
/// the table is as it was. Filling writes no change numbers: the entities did not change.
///
/// A release before declared fields refuses a table with field columns when it opens it
/// (`rejected`, "exists with the columns …"), with nothing written, as it refuses a table of
/// a newer codec.
extension SQLiteTable {
    /// The first SQLite with `ALTER TABLE … DROP COLUMN`: 3.35.0.
    static let dropColumnVersion: Int32 = 3_035_000

    /// The table of field records, shared by every repository table of the file.
    static let fieldsTableName = "repositories_entity_fields"

    private static let createFieldRecords = """
        CREATE TABLE IF NOT EXISTS \(fieldsTableName) \
        (table_name TEXT NOT NULL COLLATE NOCASE, name TEXT NOT NULL, type TEXT NOT NULL, \
        PRIMARY KEY (table_name, name))
        """

    /// The field columns of this table, as recorded: each column past `crc` that has a record,
    /// and its type; a record whose column is gone is left out. Reads only; a file without
    /// records has none.
    ///
    /// A recorded type no release knows comes back as `nil` in its place, which no declared
    /// field matches, so the column is dropped and made again.
    func recordedFields(on connection: SQLiteConnection) throws -> [String: FieldType?] {
        let hasRecords = try connection.hasTable(named: Self.fieldsTableName)
        guard hasRecords else { return [:] }
        return try connection.withStatement(
            """
            SELECT record.name, record.type FROM \(Self.fieldsTableName) AS record \
            JOIN pragma_table_info(?1) AS info ON info.name = record.name \
            WHERE record.table_name = ?1 AND info.cid >= 4
            """
        ) { statement in
            try statement.bind(.text(name), at: 1)
            var recorded: [String: FieldType?] = [:]
            while try statement.step() {
                recorded[statement.text(at: 0) ?? ""] = FieldType(rawValue: statement.text(at: 1) ?? "")
            }
            return recorded
        }
    }

    /// Whether the table's columns and indexes are those of the declared ``fields``, as
    /// recorded. Reads only.
    private func fieldsAreCurrent(on connection: SQLiteConnection) throws -> Bool {
        let recorded = try recordedFields(on: connection)
        guard recorded.count == fields.count, fields.allSatisfy({ recorded[$0.name] == $0.type }) else {
            return false
        }
        let indexes = try schemaNames(of: "index", on: connection)
        // SQLite matches names without regard to ASCII case, as the table's own.
        return fields.allSatisfy { indexes.contains(Self.asciiLowercased($0.indexName(in: name))) }
    }

    /// Makes the table's field columns those the entity declares (see the extension's
    /// overview), in one transaction; reads first without the write lock, so a table whose
    /// columns are current (every open after the first) writes nothing.
    ///
    /// - Parameter fieldValues: the declared fields' values of a body written by the given
    ///   entity version; throws when it cannot decode it.
    /// - Returns: how many columns were added and filled.
    /// - Throws: `corrupted` when a row fails its checksum; `decodingFailed` naming the first
    ///   row that does not decode; with nothing written.
    @discardableResult
    func prepareFields(
        on connection: SQLiteConnection, location: String,
        fieldValues: @escaping @Sendable (Data, Int) throws -> [FieldValue]
    ) throws -> Int {
        guard try !fieldsAreCurrent(on: connection) else { return 0 }
        return try connection.transaction(.immediate) {
            // Read again under the write lock: another connection may have done this meanwhile.
            guard try !fieldsAreCurrent(on: connection) else { return 0 }
            let recorded = try recordedFields(on: connection)
            let stale = recorded.filter { name, type in
                !fields.contains { $0.name == name && $0.type == type }
            }
            let added = fields.filter { recorded[$0.name] != $0.type }
            let staleNames = stale.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) })
            if let first = staleNames.first, SQLiteConnection.libraryVersion < Self.dropColumnVersion {
                throw RepositoryError.rejected(
                    "The table \(name) has a column for the field \(first), which the entity no longer declares as it was; dropping it needs SQLite 3.35 or later, and this is \(SQLiteConnection.libraryVersion)",
                    recovery:
                        "Declare the field \(first) again as it was, or run the app with a newer system SQLite. Nothing was changed"
                )
            }
            for field in staleNames {
                // Its names only: a stale column's type plays no part in them.
                let column = SQLiteFieldColumn(name: field, type: .text)
                try connection.execute("DROP INDEX IF EXISTS \(column.quotedIndexName(in: name))")
                try connection.execute("ALTER TABLE \(quotedName) DROP COLUMN \(column.quotedName)")
            }
            for field in added {
                try connection.execute(
                    "ALTER TABLE \(quotedName) ADD COLUMN \(field.quotedName) \(field.declaredType)")
            }
            if !added.isEmpty {
                try fill(on: connection, location: location, fieldValues: fieldValues)
            }
            try installFieldIndexes(on: connection)
            return added.count
        }
    }

    /// Makes every field's index, and records the fields as the table's, inside the caller's
    /// write transaction: for a new table, and after ``prepareFields(on:location:fieldValues:)``
    /// changed the columns.
    func installFieldIndexes(on connection: SQLiteConnection) throws {
        guard try !fields.isEmpty || connection.hasTable(named: Self.fieldsTableName) else { return }
        try connection.execute(Self.createFieldRecords)
        try connection.withStatement("DELETE FROM \(Self.fieldsTableName) WHERE table_name = ?1") {
            statement in
            try statement.bind(.text(name), at: 1)
            _ = try statement.step()
        }
        for field in fields {
            try connection.execute(
                "CREATE INDEX IF NOT EXISTS \(field.quotedIndexName(in: name)) ON \(quotedName) (\(field.quotedName))"
            )
            try connection.withStatement(
                "INSERT INTO \(Self.fieldsTableName) (table_name, name, type) VALUES (?1, ?2, ?3)"
            ) { statement in
                try statement.bind(.text(name), at: 1)
                try statement.bind(.text(field.name), at: 2)
                try statement.bind(.text(field.type.rawValue), at: 3)
                _ = try statement.step()
            }
        }
    }

    /// Writes every field column of every row from its body, inside the caller's write
    /// transaction, without numbering changes: the triggers of the change log are dropped
    /// around it and made again, since the entities themselves do not change.
    private func fill(
        on connection: SQLiteConnection, location: String,
        fieldValues: @escaping @Sendable (Data, Int) throws -> [FieldValue]
    ) throws {
        let version = try storedVersion(on: connection)
        let rows = try scan(on: connection).rows
        // Everything is checked and decoded before anything is written.
        let chunks = try ParallelChunks.map(count: rows.count, minimumChunk: Self.rowsPerProcessor) { chunk in
            try chunk.map { index in
                let row = try rows[index].verified(location: location)
                do {
                    return (rows[index].seq, try fieldValues(row.body, version))
                } catch {
                    throw RepositoryError.decodingFailed(
                        record: row.key.description, location: location, underlying: error,
                        recovery:
                            "The row does not decode as the entity, so its declared fields cannot be filled in. Nothing was changed"
                    )
                }
            }
        }
        let existingTriggers = try schemaNames(of: "trigger", on: connection)
        let triggers = changeLog.triggers.filter { existingTriggers.contains(Self.asciiLowercased($0.name)) }
        for trigger in triggers {
            try connection.execute("DROP TRIGGER \(SQLiteChangeLog.quoted(trigger.name))")
        }
        for (seq, values) in chunks.joined() {
            try connection.withStatement(updateFields) { statement in
                try statement.bind(integer: seq, at: 1)
                try statement.bind(fields: values, from: 2)
                _ = try statement.step()
            }
        }
        for trigger in triggers { try connection.execute(trigger.sql) }
    }

    /// The names of the table's schema objects of `type` (`index`, `trigger`), their ASCII
    /// letters in lower case, as SQLite matches names.
    private func schemaNames(of type: String, on connection: SQLiteConnection) throws -> Set<String> {
        try connection.withStatement(
            "SELECT name FROM sqlite_master WHERE type = ?2 AND tbl_name = ?1 COLLATE NOCASE"
        ) { statement in
            try statement.bind(.text(name), at: 1)
            try statement.bind(.text(type), at: 2)
            var names: Set<String> = []
            while try statement.step() { names.insert(Self.asciiLowercased(statement.text(at: 0) ?? "")) }
            return names
        }
    }
}
