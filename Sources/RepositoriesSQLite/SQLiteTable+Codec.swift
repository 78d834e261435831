import Repositories

/// The codec a table's bodies are encoded with, recorded once, when the table is created.
///
/// The codec is kept per table, beside its entity version, in a table of its own the file
/// shares:
///
/// ```sql
/// CREATE TABLE "repositories_entity_codecs" (
///     table_name TEXT PRIMARY KEY,  -- the repository's table, as SQLiteOptions.tableName names it
///     codec INTEGER NOT NULL        -- EntityCodec.Identifier's byte: 74 (J) JSON, 66 (B) binary
/// )
/// ```
///
/// A table of its own rather than a column of `repositories_entity_versions`, which earlier
/// releases create and write with two columns: adding one would change a table they share.
/// A table without a record (every table written before codecs) is JSON, and stays JSON for
/// life: opening it writes no record, so the file stays byte for byte as it was. A new table
/// is created together with its record, in one transaction, so no table is ever seen without
/// the codec it was created with.
///
/// A table of any codec other than JSON declares its `body` column `BLOB` (see
/// ``SQLiteTable/BodyColumn``). Releases before codecs accept only `body TEXT`, so they refuse
/// such a table when they open it, with `rejected` and nothing written ("exists with the
/// columns …, not the (seq, id, body, crc) this repository stores"), rather than failing
/// row by row with `decodingFailed`, or writing JSON rows among binary ones.
extension SQLiteTable {
    /// The table of codec records, shared by every repository table of the file.
    static let codecsTableName = "repositories_entity_codecs"

    private static let createCodecs =
        "CREATE TABLE IF NOT EXISTS \(codecsTableName) (table_name TEXT PRIMARY KEY, codec INTEGER NOT NULL)"

    /// The codec recorded for this table, or `nil` when it has none (a table written before
    /// codecs, which is JSON). Reads only; a file without the table of records is not changed.
    ///
    /// A recorded value that is not a byte comes back as a codec no release knows (`0xFF`…),
    /// which opening then refuses.
    func recordedCodec(on connection: SQLiteConnection) throws -> EntityCodec.Identifier? {
        let hasRecords = try connection.hasTable(named: Self.codecsTableName)
        guard hasRecords else { return nil }
        return try connection.withStatement(
            "SELECT codec FROM \(Self.codecsTableName) WHERE table_name = ?1"
        ) { statement in
            try statement.bind(.text(name), at: 1)
            guard try statement.step() else { return nil }
            return EntityCodec.Identifier(rawValue: UInt8(clamping: statement.int64(at: 0)))
        }
    }

    /// Creates the table with its bodies stored as `codec` needs and its field columns, records
    /// `codec` and the fields, and makes the fields' indexes and the table's change log (see
    /// ``SQLiteChangeLog``; none with `changeLog` false: a sibling's table, which no feed
    /// reads), in one transaction; does nothing when another connection created the table first.
    ///
    /// - Throws: `rejected` when a table of the change log's name exists and is not a log.
    func create(
        with codec: EntityCodec.Identifier, changeLog: Bool = true, on connection: SQLiteConnection,
        location: String
    ) throws {
        try connection.transaction(.immediate) {
            guard try presence(on: connection, location: location) == .missing else { return }
            // A log left by a table of this name that is gone is never this table's.
            _ = try changeLogState(on: connection, location: location)
            try connection.execute(createTable(BodyColumn(codec)))
            try connection.execute(Self.createCodecs)
            try connection.withStatement(
                "INSERT INTO \(Self.codecsTableName) (table_name, codec) VALUES (?1, ?2) "
                    + "ON CONFLICT(table_name) DO UPDATE SET codec = excluded.codec"
            ) { statement in
                try statement.bind(.text(name), at: 1)
                try statement.bind(integer: Int64(codec.rawValue), at: 2)
                _ = try statement.step()
            }
            try installFieldIndexes(on: connection)
            if changeLog { try installChangeLog(on: connection) }
        }
    }

    /// The codec of this table, present with its `body` declared as `body`: the recorded one,
    /// or JSON when there is no record. Reads only.
    ///
    /// - Throws: `rejected` when the recorded codec is one this release does not know (a newer
    ///   release created the table); `corrupted` when the `body` column's declared type is not
    ///   the one the codec needs (the record or the schema was changed by hand, or damaged).
    func checkedCodec(declaring body: BodyColumn, on connection: SQLiteConnection, location: String) throws
        -> EntityCodec.Identifier
    {
        let identifier = try recordedCodec(on: connection) ?? .json
        try identifier.refuseUnlessKnown(in: location)
        guard BodyColumn(identifier) == body else {
            throw RepositoryError.corrupted(
                "The table \(name) records entity codec \(identifier), whose bodies are \(BodyColumn(identifier).rawValue), but its body column is declared \(body.rawValue)",
                location: location)
        }
        return identifier
    }
}
