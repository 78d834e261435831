import Foundation
import Repositories

/// The table's reads and writes on a given connection: the writer's, or a reader's.
///
/// Reads hand back rows as stored (``SQLiteStoredRow``); the caller verifies them, outside
/// any lock. Writes store each row's checksum, which covers its `seq`; an upsert has SQL
/// compute both in the statement that writes the row.
extension SQLiteTable {
    // MARK: Reading

    /// The row stored under `key`, as stored, or `nil`.
    func storedRow(for key: SQLiteKey, on connection: SQLiteConnection) throws -> SQLiteStoredRow? {
        try connection.withStatement(selectRow) { statement in
            try statement.bind(key, at: 1)
            return try statement.step() ? SQLiteStoredRow(of: statement) : nil
        }
    }

    /// Every row in `seq` order, and the `id` index's count, in one read transaction so the
    /// two agree even while other connections write.
    func scan(on connection: SQLiteConnection) throws -> SQLiteTableScan {
        try connection.transaction(.deferred) {
            let rows = try connection.withStatement(selectAll) { statement in
                var rows: [SQLiteStoredRow] = []
                while try statement.step() { rows.append(SQLiteStoredRow(of: statement)) }
                return rows
            }
            let indexed = try connection.integer(count) ?? 0
            return SQLiteTableScan(rows: rows, indexedCount: Int(indexed))
        }
    }

    /// The rows stored under `keys`, in no particular order; absent keys have none.
    ///
    /// Long lists are read in chunks of at most `maximumChunk` keys within SQLite's
    /// parameter limit, all in one read transaction, so the answer is one consistent snapshot
    /// even while other connections write.
    func storedRows(
        for keys: [SQLiteKey], maximumChunk: Int, on connection: SQLiteConnection
    ) throws -> [SQLiteStoredRow] {
        let chunks = Self.chunks(of: keys, maximum: maximumChunk)
        guard chunks.count > 1 else { return try select(chunks, on: connection) }
        return try connection.transaction(.deferred) { try select(chunks, on: connection) }
    }

    /// How many rows the table holds, counted by SQLite on the `id` index.
    func rowCount(on connection: SQLiteConnection) throws -> Int {
        Int(try connection.integer(count) ?? 0)
    }

    private func select(_ chunks: [[SQLiteKey]], on connection: SQLiteConnection) throws -> [SQLiteStoredRow]
    {
        var found: [SQLiteStoredRow] = []
        for chunk in chunks {
            try connection.withStatement(selectRows(parameterCount: chunk.count)) { statement in
                try Self.bind(chunk, to: statement)
                while try statement.step() { found.append(SQLiteStoredRow(of: statement)) }
            }
        }
        return found
    }

    // MARK: Writing

    /// Inserts `row`, or replaces the body of the row with its key (which keeps its `seq`),
    /// with its checksum, in one statement: outside a transaction it is its own, so a single
    /// save is one statement and one commit, like the plainest use of SQLite.
    ///
    /// The statement computes the new row's `seq` (one more than the largest) and the
    /// checksum (``SQLiteRow/checksumFunctionName``, installed on the writer's connection) in
    /// SQL. Only when the largest `seq` is already `Int64.max` does SQLite refuse it (the
    /// next `seq` is not an integer); then the row takes the path that reads the `seq` first,
    /// which still updates an existing row and refuses a new one.
    func upsert(_ row: SQLiteRow, on connection: SQLiteConnection) throws {
        do {
            try connection.withStatement(upsert) { statement in
                try statement.bind(row.key, at: 1)
                try statement.bind(body: row.body, as: bodyColumn, at: 2)
                try statement.bind(fields: row.fields, from: 3)
                _ = try statement.step()
            }
        } catch let error as SQLiteError where error.code == SQLiteError.mismatch {
            try connection.transaction(.immediate) {
                var nextSeq: Int64?
                try upsertReadingSeq(row, nextSeq: &nextSeq, on: connection)
            }
        }
    }

    /// Inserts `row`, or replaces the body of the row with its key (which keeps its `seq`),
    /// with its checksum, in statements that read the `seq` first. Must run inside a write
    /// transaction, since it reads the `seq` it then writes.
    ///
    /// - Parameter nextSeq: the `seq` a new row takes; read from the table when `nil`, and
    ///   advanced after an insert.
    private func upsertReadingSeq(_ row: SQLiteRow, nextSeq: inout Int64?, on connection: SQLiteConnection)
        throws
    {
        let existing = try connection.withStatement(selectSeq) { statement in
            try statement.bind(row.key, at: 1)
            return try statement.step() ? statement.int64(at: 0) : nil
        }
        if let seq = existing {
            try connection.withStatement(update) { statement in
                try statement.bind(integer: seq, at: 1)
                try statement.bind(body: row.body, as: bodyColumn, at: 2)
                try statement.bind(
                    integer: Int64(SQLiteRow.checksum(seq: seq, key: row.key, body: row.body)), at: 3)
                try statement.bind(fields: row.fields, from: 4)
                _ = try statement.step()
            }
            return
        }
        let seq = try nextSeq ?? largestSeq(on: connection) + 1
        try connection.withStatement(insert) { statement in
            try statement.bind(integer: seq, at: 1)
            try statement.bind(row.key, at: 2)
            try statement.bind(body: row.body, as: bodyColumn, at: 3)
            try statement.bind(
                integer: Int64(SQLiteRow.checksum(seq: seq, key: row.key, body: row.body)), at: 4)
            try statement.bind(fields: row.fields, from: 5)
            _ = try statement.step()
        }
        // At the very last seq, the next insert reads the table again, and is refused there.
        nextSeq = seq == .max ? nil : seq + 1
    }

    /// Deletes the rows of `keys`, in chunks within SQLite's parameter limit; the caller
    /// wraps several chunks in one transaction.
    func delete(_ chunks: [[SQLiteKey]], on connection: SQLiteConnection) throws {
        for chunk in chunks {
            try connection.withStatement(deleteRows(parameterCount: chunk.count)) { statement in
                try Self.bind(chunk, to: statement)
                _ = try statement.step()
            }
        }
    }

    /// The largest `seq` in the table, or 0 when it is empty.
    ///
    /// - Throws: `RepositoryError` `rejected` when it is already `Int64.max`, so no new row
    ///   can sort after every other (SQLite would pick a random free rowid instead).
    private func largestSeq(on connection: SQLiteConnection) throws -> Int64 {
        let largest = try connection.withStatement(largestSeq) { statement in
            try statement.step() ? statement.int64(at: 0) : 0
        }
        guard largest < Int64.max else {
            throw RepositoryError.rejected(
                "The table \(name) has used every seq value, so a new entity cannot be placed last",
                recovery: "Save the entities into a new table")
        }
        return largest
    }

    // MARK: ID lists

    private static func bind(_ keys: [SQLiteKey], to statement: SQLiteStatement) throws {
        for (offset, key) in keys.enumerated() {
            try statement.bind(key, at: Int32(offset + 1))
        }
    }

    /// Splits `keys` into lists of at most `maximum` (a power of two), padding the last to a
    /// power of two by repeating its last key, so the `IN (…)` statements come in a few sizes
    /// the statement cache can keep. A repeated key changes nothing in an `IN` list.
    static func chunks(of keys: [SQLiteKey], maximum: Int) -> [[SQLiteKey]] {
        var chunks: [[SQLiteKey]] = []
        chunks.reserveCapacity(keys.count / maximum + 1)
        var start = keys.startIndex
        while start < keys.endIndex {
            let end = min(start + maximum, keys.endIndex)
            var chunk = Array(keys[start..<end])
            var size = 1
            while size < chunk.count { size *= 2 }
            if let last = chunk.last {
                chunk.append(contentsOf: repeatElement(last, count: size - chunk.count))
            }
            chunks.append(chunk)
            start = end
        }
        return chunks
    }
}

extension SQLiteStoredRow {
    /// The current row of a statement that selects `seq, id, body, crc`.
    init(of statement: SQLiteStatement) {
        self.init(
            seq: statement.int64(at: 0), key: statement.key(at: 1), body: statement.data(at: 2),
            checksum: statement.integerIfStored(at: 3))
    }
}
