/// The statements of conditional writes (``PostgresRepository``'s
/// `VersionTaggingRepository` conformance): each writes only when the row still has the
/// version it names (or, for a create, when there is no row), logs the change for the feed
/// in one statement. A statement that wrote answers one row (the ID it changed); one the
/// condition stopped answers none.
extension PostgresTable {
    /// The entity and its version. Parameter: the key.
    var fetchVersioned: PostgresStatement {
        statement(
            "fetch_versioned", "SELECT \(bodyColumns), version FROM \(quotedName) WHERE id = $1", [keyOID])
    }

    /// The entity and its version, its row locked until the transaction ends. Parameter: the key.
    var fetchLocked: PostgresStatement {
        statement(
            "fetch_locked", "SELECT \(bodyColumns), version FROM \(quotedName) WHERE id = $1 FOR UPDATE",
            [keyOID])
    }

    /// Replaces the body when the row's version is `$3`. Parameters: the key, the body, the
    /// version, the fields.
    var replaceIfVersion: PostgresStatement {
        statement(
            "replace_if_version",
            """
            WITH w AS (UPDATE \(quotedName) SET body = \(storage.value(of: "$2")), version = version + 1,
                    schema_version = \(schemaVersionOnReplace(quotedName))\(fieldAssignments(fieldPlaceholders(from: 4), row: quotedName))
                WHERE id = $1 AND version = $3 RETURNING id),
            \(logChanges(deleted: false)) \(changedIDs)
            """,
            [keyOID, PostgresParameter.bytea, PostgresParameter.int8] + fieldTypes)
    }

    /// Inserts the row when no row has its ID. Parameters: the key, the body, the fields.
    var insertIfAbsent: PostgresStatement {
        statement(
            "insert_if_absent",
            """
            WITH w AS (INSERT INTO \(quotedName) (id, body, version, schema_version\(fieldInsertColumns))
                VALUES ($1, \(storage.value(of: "$2")), 1, \(schemaVersion)\(fieldInsertValues(fieldPlaceholders(from: 3))))
                ON CONFLICT (id) DO NOTHING RETURNING id),
            \(logChanges(deleted: false)) \(changedIDs)
            """,
            [keyOID, PostgresParameter.bytea] + fieldTypes)
    }

    /// Deletes the row when its version is `$2`. Parameters: the key, the version.
    var deleteIfVersion: PostgresStatement {
        statement(
            "delete_if_version",
            """
            WITH w AS (DELETE FROM \(quotedName) WHERE id = $1 AND version = $2 RETURNING id),
            \(logChanges(deleted: true)) \(changedIDs)
            """,
            [keyOID, PostgresParameter.int8])
    }
}
