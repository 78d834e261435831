import Repositories

extension SQLiteTable {
    /// Whether the table exists, once it is known not to be of another shape, and how its
    /// `body` column is declared.
    enum Presence: Equatable {
        case missing
        case present(BodyColumn)
    }

    /// The columns this repository writes, as `pragma_table_info` lists them: name, declared
    /// type, `NOT NULL`, position in the primary key.
    private static func expectedColumns(_ body: BodyColumn) -> [Column] {
        [
            Column(name: "seq", type: "INTEGER", notNull: false, primaryKey: 1),
            Column(name: "id", type: "", notNull: true, primaryKey: 0),
            Column(name: "body", type: body.rawValue, notNull: true, primaryKey: 0),
            Column(name: "crc", type: "INTEGER", notNull: true, primaryKey: 0),
        ]
    }

    private struct Column: Equatable {
        var name: String
        var type: String
        var notNull: Bool
        var primaryKey: Int64
    }

    /// Reads the table's shape from SQLite's parsed schema, without writing anything.
    ///
    /// - Returns: ``Presence/missing`` when no table of this name exists,
    ///   ``Presence/present(_:)`` when it has exactly the columns (with a `body` of either
    ///   declared type) and the unique `id` index this repository writes, followed by the
    ///   field columns recorded for it (see ``recordedFields(on:)``).
    /// - Throws: `RepositoryError` `corrupted` when the table's stored definition differs
    ///   from this repository's in a byte or two, as a flipped byte would leave it;
    ///   `rejected` when the table was made by an earlier version of the repository (no
    ///   `crc` column) or by someone else, so it is never misread or overwritten.
    func presence(on connection: SQLiteConnection, location: String) throws -> Presence {
        let columns = try connection.withStatement(
            #"SELECT name, type, "notnull", pk FROM pragma_table_info(?1) ORDER BY cid"#
        ) { statement in
            try statement.bind(.text(name), at: 1)
            var columns: [Column] = []
            while try statement.step() {
                columns.append(
                    Column(
                        name: statement.text(at: 0) ?? "", type: statement.text(at: 1) ?? "",
                        notNull: statement.int64(at: 2) != 0, primaryKey: statement.int64(at: 3)))
            }
            return columns
        }
        if columns.isEmpty { return .missing }
        let base = Array(columns.prefix(4))
        for body in [BodyColumn.text, .blob] where base == Self.expectedColumns(body) {
            if try hasUniqueIDIndex(on: connection),
                try hasRecordedFieldColumns(Array(columns.dropFirst(4)), on: connection)
            {
                return .present(body)
            }
        }

        let names = columns.map(\.name)
        if let stored = try storedDefinition(on: connection),
            let differing = [BodyColumn.text, .blob].compactMap({
                Self.differingBytes(stored, storedDefinition($0))
            }).min(), differing <= 2
        {
            throw RepositoryError.corrupted(
                "The definition of the table \(name) is damaged: it differs from the one this repository wrote in \(differing) byte\(differing == 1 ? "" : "s")",
                location: location)
        }
        if Set(names) == ["seq", "id", "body"] {
            throw RepositoryError.rejected(
                "The table \(name) was made by an earlier version of SQLiteRepository, without the crc column that lets every read check its row",
                recovery:
                    "Read the entities with the earlier version and save them into a new file or table, or pass another SQLiteOptions.tableName"
            )
        }
        throw RepositoryError.rejected(
            "The table \(name) exists with the columns \(names), not the (seq, id, body, crc) this repository stores",
            recovery: "Pass another SQLiteOptions.tableName, or open the file this table belongs to")
    }

    /// Whether `extra`, the columns after `crc`, are each a field column recorded for this
    /// table (see ``recordedFields(on:)``) and declared as its type needs.
    private func hasRecordedFieldColumns(_ extra: [Column], on connection: SQLiteConnection) throws -> Bool {
        guard !extra.isEmpty else { return true }
        let recorded = try recordedFields(on: connection)
        return extra.allSatisfy { column in
            guard let type = recorded[column.name] else { return false }
            // A type no release knows is accepted as recorded: opening makes the column again.
            let declared = type.map { SQLiteFieldColumn(name: column.name, type: $0).declaredType }
            return (declared == nil || declared == column.type) && !column.notNull && column.primaryKey == 0
        }
    }

    /// Whether a unique, non-partial index covers exactly the `id` column (the one `UNIQUE` makes).
    private func hasUniqueIDIndex(on connection: SQLiteConnection) throws -> Bool {
        let sql = """
            SELECT count(*) FROM pragma_index_list(?1) AS list
            WHERE list."unique" = 1 AND list.partial = 0
            AND (SELECT group_concat(info.name) FROM pragma_index_info(list.name) AS info) = 'id'
            """
        return try connection.withStatement(sql) { statement in
            try statement.bind(.text(name), at: 1)
            return try statement.step() && statement.int64(at: 0) > 0
        }
    }

    /// The bytes of the table's `sql` in `sqlite_master`, as stored: a damaged byte may not be
    /// UTF-8. SQLite matches table names without regard to ASCII case.
    private func storedDefinition(on connection: SQLiteConnection) throws -> [UInt8]? {
        try connection.withStatement(
            "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?1 COLLATE NOCASE"
        ) { statement in
            try statement.bind(.text(name), at: 1)
            return try statement.step() ? Array(statement.data(at: 0)) : nil
        }
    }

    /// How many bytes of `stored` differ from `expected` (ASCII case aside), or `nil` when
    /// their lengths differ.
    private static func differingBytes(_ stored: [UInt8], _ expected: String) -> Int? {
        let expected = Array(expected.utf8)
        guard stored.count == expected.count else { return nil }
        return zip(stored, expected).count { lowercased($0) != lowercased($1) }
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }
}
