/// The statements that upgrade the rows older versions of the entity wrote, when a
/// repository with newer ``Migrations`` opens the table: all in one transaction under the
/// table's advisory lock (``PostgresRepository/upgradeRows()``).
extension PostgresTable {
    /// The newest entity version that has opened the table.
    var openedVersion: String {
        "SELECT schema_version FROM \(quotedFeed) LIMIT 1"
    }

    /// Starts the upgrade: the transaction, the lock, and the newest version that opened
    /// the table, its row locked.
    var beginUpgrade: String {
        """
        BEGIN;
        SELECT pg_advisory_xact_lock(hashtext('swift-repositories:' || \(literal(name))));
        SELECT schema_version FROM \(quotedFeed) LIMIT 1 FOR UPDATE;
        """
    }

    /// Up to 500 rows older versions wrote, locked: their IDs, bodies and versions.
    var olderRows: PostgresStatement {
        statement(
            "older_rows_v\(schemaVersion)",
            """
            SELECT id, \(bodyColumns) FROM \(quotedName) WHERE schema_version < \(schemaVersion)
            ORDER BY id LIMIT 500 FOR UPDATE
            """,
            [])
    }

    /// Replaces the bodies of the rows `$1` with `$2`, upgraded (and their fields with `$3`…),
    /// stamps them with this
    /// version, counts each as a write, and logs them for the feed.
    var upgradeBodies: PostgresStatement {
        statement(
            "upgrade_bodies_v\(schemaVersion)",
            """
            WITH w AS (UPDATE \(quotedName) t SET body = \(storage.value(of: "u.b")), version = t.version + 1,
                    schema_version = \(schemaVersion)\(fieldAssignments(fieldUnnestColumns("u."), row: "t"))
                FROM unnest($1::\(keyArrayType), $2::bytea[]\(fieldUnnestArguments(from: 3)))
                    AS u(k, b\(fieldUnnestAliases))
                WHERE t.id = u.k RETURNING t.id),
            \(logChanges(deleted: false))
            SELECT count(*) FROM w
            """,
            [keyArrayOID, PostgresParameter.byteaArray] + fieldArrayTypes)
    }

    /// Records this version as the newest that opened the table, and commits.
    var finishUpgrade: String {
        """
        UPDATE \(quotedFeed) SET schema_version = greatest(schema_version, \(schemaVersion));
        COMMIT;
        """
    }
}
