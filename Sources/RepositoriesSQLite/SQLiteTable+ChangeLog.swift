import Foundation
import Repositories

/// Making, checking, reading and pruning the table's change log (see ``SQLiteChangeLog``).
extension SQLiteTable {
    /// What opening finds of the table's change log.
    enum ChangeLogState: Equatable {
        /// The log, its record and its four triggers are there as this release makes them.
        case ready
        /// Some part is missing or not as this release makes it: the log is made again.
        case missing
    }

    /// Reads whether the table's change log is whole; writes nothing.
    ///
    /// - Throws: `rejected` when a table of the log's name exists with other columns: a table
    ///   this repository did not make, which it neither uses nor drops.
    func changeLogState(on connection: SQLiteConnection, location: String) throws -> ChangeLogState {
        let columns = try connection.withStatement(
            #"SELECT name, type, "notnull", pk FROM pragma_table_info(?1) ORDER BY cid"#
        ) { statement in
            try statement.bind(.text(changeLog.logName), at: 1)
            var columns: [String] = []
            while try statement.step() {
                columns.append(
                    "\(statement.text(at: 0) ?? "") \(statement.text(at: 1) ?? "") \(statement.int64(at: 2)) \(statement.int64(at: 3))"
                )
            }
            return columns
        }
        guard !columns.isEmpty else { return .missing }
        guard columns == ["change INTEGER 0 1", "key  1 0", "deleted_at INTEGER 0 0"] else {
            throw RepositoryError.rejected(
                "The table \(changeLog.logName) exists, but not as the change log of the table \(name) that SQLiteRepository keeps under that name",
                recovery: "Rename that table, or pass another SQLiteOptions.tableName")
        }
        guard try feedRecord(on: connection) != nil else { return .missing }
        // One read of the schema for the four: every trigger on the table, by name.
        let stored = try connection.withStatement(
            "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ?1 COLLATE NOCASE"
        ) { statement in
            try statement.bind(.text(name), at: 1)
            var stored: [String: String] = [:]
            while try statement.step() {
                stored[Self.asciiLowercased(statement.text(at: 0) ?? "")] = statement.text(at: 1) ?? ""
            }
            return stored
        }
        for trigger in changeLog.triggers {
            // Without regard to ASCII case, as SQLite reads names (`note` is the table `Note`);
            // the triggers' SQL holds no text whose case matters.
            guard let sql = stored[Self.asciiLowercased(trigger.name)],
                Self.asciiLowercased(sql) == Self.asciiLowercased(trigger.sql)
            else { return .missing }
        }
        return .ready
    }

    /// `text` with its ASCII letters in lower case, and every other character as it is: how
    /// SQLite compares names.
    static func asciiLowercased(_ text: String) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.map { scalar in
                    ("A"..."Z").contains(scalar) ? Unicode.Scalar(scalar.value + 32) ?? scalar : scalar
                }))
    }

    /// The table's origin and the newest tombstone pruned, or `nil` when the file has no record
    /// of its log. Reads only; a file without the table of records is not changed.
    func feedRecord(on connection: SQLiteConnection) throws -> (origin: String, forgottenThrough: Int64)? {
        let hasRecords = try connection.hasTable(named: SQLiteChangeLog.feedsTableName)
        guard hasRecords else { return nil }
        return try connection.withStatement(changeLog.selectFeed) { statement in
            try statement.bind(.text(name), at: 1)
            guard try statement.step(), let origin = statement.text(at: 0), !origin.isEmpty,
                let forgotten = statement.integerIfStored(at: 1)
            else { return nil }
            return (origin, forgotten)
        }
    }

    /// Makes the table's change log when it has none (a table an earlier release wrote, or
    /// made again without one), numbering every row in `seq` order, in one transaction: after
    /// a crash the file holds the whole log or none of it, and the next open makes it again.
    ///
    /// Reads first without taking the write lock, so a table whose log is whole (every open
    /// after the first) costs a few reads of the schema and writes nothing. Before it writes,
    /// it runs SQLite's `quick_check` and checks every row, as opening does before any write.
    ///
    /// - Returns: whether it made the log.
    /// - Throws: `corrupted` when the check finds damage, with nothing written; `rejected`
    ///   when a table of the log's name is not a log (see ``changeLogState(on:location:)``).
    @discardableResult
    func prepareChangeLog(on connection: SQLiteConnection, location: String) throws -> Bool {
        guard try changeLogState(on: connection, location: location) == .missing else { return false }
        return try connection.transaction(.immediate) {
            // Read again under the write lock: another connection may have made it meanwhile.
            guard try changeLogState(on: connection, location: location) == .missing else { return false }
            let verdict = try connection.text("PRAGMA quick_check(1)") ?? "no answer"
            guard verdict == "ok" else {
                throw RepositoryError.corrupted(
                    "SQLite's check of the file found damage: \(verdict)", location: location)
            }
            _ = try scan(on: connection).verifiedRows(location: location)
            try installChangeLog(on: connection)
            return true
        }
    }

    /// Makes the change log anew inside the caller's write transaction: drops what is left of
    /// an earlier one, creates the log and numbers the table's rows, records a new origin (so
    /// every cursor of the earlier log expires), and creates the triggers.
    ///
    /// The caller has made sure a table of the log's name, if any, is a log.
    func installChangeLog(on connection: SQLiteConnection) throws {
        for trigger in changeLog.triggers {
            try connection.execute("DROP TRIGGER IF EXISTS \(SQLiteChangeLog.quoted(trigger.name))")
        }
        try connection.execute(changeLog.dropLog)
        try connection.execute(changeLog.createLog)
        try connection.execute(changeLog.backFill)
        try connection.execute(SQLiteChangeLog.createFeeds)
        try connection.withStatement(changeLog.upsertFeed) { statement in
            try statement.bind(.text(name), at: 1)
            try statement.bind(.text(UUID().uuidString), at: 2)
            _ = try statement.step()
        }
        for trigger in changeLog.triggers { try connection.execute(trigger.sql) }
    }

    // MARK: Reading

    /// The log's record (its origin and the bound below which cursors expire) and its newest
    /// change number, read inside the caller's read transaction.
    ///
    /// - Throws: `corrupted` when the log's record is missing.
    private func newest(on connection: SQLiteConnection, location: String) throws -> (
        record: (origin: String, forgottenThrough: Int64), newest: Int64
    ) {
        guard let record = try feedRecord(on: connection) else {
            throw RepositoryError.corrupted(
                "The record of the change log of the table \(name) is missing from \(SQLiteChangeLog.feedsTableName)",
                location: location)
        }
        return (record, try connection.integer(changeLog.largestChange) ?? 0)
    }

    /// The log's entries after `cursor` (`nil`: from the beginning), at most `limit`, each with
    /// the row of its key as stored, unverified; read in one read transaction, so the page is
    /// one consistent snapshot of the table and its log.
    ///
    /// - Throws: `cursorExpired` when `cursor` names another log, lies beyond the log's newest
    ///   number (a copy of the file from before it), or lies before the newest tombstone
    ///   pruned; `corrupted` when the file keeps no record of the log.
    func changeEntries(
        after cursor: SQLiteChangeCursor?, limit: Int, on connection: SQLiteConnection, location: String
    ) throws -> SQLiteChangeEntries {
        try readingLog(after: cursor, on: connection, location: location) { record, newest, after in
            let entries = try connection.withStatement(changeLog.selectPage) { statement in
                try statement.bind(integer: after, at: 1)
                try statement.bind(integer: Int64(limit), at: 2)
                var entries: [SQLiteChangeEntries.Entry] = []
                entries.reserveCapacity(min(limit, 4_096))
                while try statement.step() { entries.append(SQLiteChangeEntries.Entry(of: statement)) }
                return entries
            }
            return SQLiteChangeEntries(
                origin: record.origin, bound: record.forgottenThrough, after: after, entries: entries,
                newest: newest, limit: limit)
        }
    }

    /// The keys the log changed after `cursor`, at most `limit`, in change order, and the
    /// cursor past them: the log alone, in one read transaction, no row read (see
    /// `SQLiteRepository.committedChanges(checkingEvery:)`). A key that is neither an integer
    /// nor text reads as `nil`.
    ///
    /// - Throws: as ``changeEntries(after:limit:on:location:)``.
    func changedKeys(
        after cursor: SQLiteChangeCursor, limit: Int, on connection: SQLiteConnection, location: String
    ) throws -> SQLiteChangedKeys {
        try readingLog(after: cursor, on: connection, location: location) { record, newest, after in
            var last = after
            let keys = try connection.withStatement(changeLog.selectKeys) { statement in
                try statement.bind(integer: after, at: 1)
                try statement.bind(integer: Int64(limit), at: 2)
                var keys: [SQLiteKey?] = []
                while try statement.step() {
                    last = statement.int64(at: 0)
                    keys.append(statement.key(at: 1))
                }
                return keys
            }
            return SQLiteChangedKeys(
                keys: keys,
                next: SQLiteChangeCursor(origin: record.origin, number: last, bound: record.forgottenThrough),
                hasMore: last < newest)
        }
    }

    /// The cursor of the log's newest change, in one read transaction: where a reader that
    /// wants only what commits from now on starts.
    ///
    /// - Throws: `corrupted` when the log's record is missing.
    func newestCursor(on connection: SQLiteConnection, location: String) throws -> SQLiteChangeCursor {
        try readingLog(after: nil, on: connection, location: location) { record, newest, _ in
            SQLiteChangeCursor(origin: record.origin, number: newest, bound: record.forgottenThrough)
        }
    }

    /// Runs `body` in one read transaction with the log's record, its newest change number and
    /// the number `cursor` stands at (0 for `nil`), once `cursor` is checked against them.
    private func readingLog<Result>(
        after cursor: SQLiteChangeCursor?, on connection: SQLiteConnection, location: String,
        _ body: ((origin: String, forgottenThrough: Int64), Int64, Int64) throws -> Result
    ) throws -> Result {
        try connection.transaction(.deferred) {
            let (record, newest) = try newest(on: connection, location: location)
            if let cursor {
                try Self.check(
                    cursor, origin: record.origin, newest: newest, forgottenThrough: record.forgottenThrough,
                    location: location)
            }
            return try body(record, newest, cursor?.number ?? 0)
        }
    }

    private static func check(
        _ cursor: SQLiteChangeCursor, origin: String, newest: Int64, forgottenThrough: Int64, location: String
    ) throws {
        guard cursor.origin == origin else {
            throw SQLiteChangeCursor.expired(
                "The cursor was issued by another change log than this table's (another file or table, or this table before its log was made again)",
                location: location)
        }
        guard cursor.number <= newest else {
            throw SQLiteChangeCursor.expired(
                "The cursor is at change \(cursor.number), past this table's newest, \(newest): it was issued by another copy of the file",
                location: location)
        }
        // Below the bound, the cursor is answered only when nothing was forgotten since it was
        // issued (its reader was reading from nil, which needs no tombstone).
        guard cursor.number >= forgottenThrough || cursor.bound == forgottenThrough else {
            throw SQLiteChangeCursor.expired(
                "The cursor is at change \(cursor.number), older than the deletions this table remembers (it forgot those up to change \(forgottenThrough))",
                location: location)
        }
    }

    // MARK: Pruning

    /// Forgets the tombstones `retention` no longer keeps, as of `now`, in one write
    /// transaction, and raises the file's bound below which cursors expire to the newest one
    /// forgotten.
    ///
    /// - Returns: how many tombstones it forgot.
    /// - Complexity: O(*n*) in the log's length: tombstones have no index of their own, so
    ///   writes pay nothing for them.
    func pruneTombstones(
        _ retention: SQLiteOptions.TombstoneRetention, now: Date, on connection: SQLiteConnection
    ) throws -> Int {
        guard let forgotten = changeLog.forgottenTombstones(retention.rule) else { return 0 }
        return try connection.transaction(.immediate) {
            guard try feedRecord(on: connection) != nil else { return 0 }
            let newest = try connection.integer(changeLog.largestChange) ?? 0
            let bound: Int64
            switch retention.rule {
            case .forever:
                return 0
            case .newest(let count):
                let beyond = try connection.withStatement(changeLog.newestTombstoneBeyond) { statement in
                    try statement.bind(integer: Int64(count), at: 1)
                    return try statement.step() ? statement.int64(at: 0) : nil
                }
                guard let beyond else { return 0 }
                bound = beyond
            case .age(let age):
                bound = Int64((now.timeIntervalSince1970 - age / .seconds(1)).rounded(.down))
            }
            let newestForgotten = try connection.withStatement(
                "SELECT max(change), count(*) FROM \(changeLog.quotedLog) WHERE \(forgotten)"
            ) { statement -> (Int64, Int)? in
                try statement.bind(integer: newest, at: 1)
                try statement.bind(integer: bound, at: 2)
                guard try statement.step(), let change = statement.integerIfStored(at: 0) else { return nil }
                return (change, Int(statement.int64(at: 1)))
            }
            guard let (change, count) = newestForgotten else { return 0 }
            try connection.withStatement("DELETE FROM \(changeLog.quotedLog) WHERE \(forgotten)") {
                statement in
                try statement.bind(integer: newest, at: 1)
                try statement.bind(integer: bound, at: 2)
                _ = try statement.step()
            }
            try connection.withStatement(changeLog.raiseForgottenThrough) { statement in
                try statement.bind(.text(name), at: 1)
                try statement.bind(integer: change, at: 2)
                _ = try statement.step()
            }
            return count
        }
    }
}
