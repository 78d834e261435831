import Foundation

extension SQLiteDatabase {
    /// Upserts every row in one transaction: all land, or (on any error) none.
    ///
    /// Takes the write lock first (`BEGIN IMMEDIATE`), waiting up to the busy timeout, so a
    /// batch never fails halfway for want of the lock.
    func upsert(contentsOf rows: [SQLiteRow]) throws {
        try perform { connection in
            guard !rows.isEmpty else { return }
            try connection.transaction(.immediate) {
                for row in rows { try upsert(row, on: connection) }
            }
        }
    }

    /// The bodies stored under `keys`, by key; absent keys are missing from the result.
    ///
    /// Long lists are read in chunks within SQLite's parameter limit, all in one read
    /// transaction, so the answer is one consistent snapshot even while other connections write.
    func bodies(for keys: [SQLiteKey]) throws -> [SQLiteKey: Data] {
        try perform { connection in
            let chunks = Self.chunks(of: keys, maximum: maximumChunk)
            guard chunks.count > 1 else { return try select(chunks, on: connection) }
            return try connection.transaction(.deferred) { try select(chunks, on: connection) }
        }
    }

    /// Deletes the rows of `keys` in one transaction, however many chunks the list takes.
    func delete(_ keys: [SQLiteKey]) throws {
        try perform { connection in
            let chunks = Self.chunks(of: keys, maximum: maximumChunk)
            guard chunks.count > 1 else { return try delete(chunks, on: connection) }
            try connection.transaction(.immediate) { try delete(chunks, on: connection) }
        }
    }

    private func select(_ chunks: [[SQLiteKey]], on connection: SQLiteConnection) throws -> [SQLiteKey: Data]
    {
        var found: [SQLiteKey: Data] = [:]
        for chunk in chunks {
            try connection.withStatement(table.selectRows(parameterCount: chunk.count)) { statement in
                try Self.bind(chunk, to: statement)
                while try statement.step() {
                    let row = Self.row(of: statement)
                    found[row.key] = row.body
                }
            }
        }
        return found
    }

    private func delete(_ chunks: [[SQLiteKey]], on connection: SQLiteConnection) throws {
        for chunk in chunks {
            try connection.withStatement(table.deleteRows(parameterCount: chunk.count)) { statement in
                try Self.bind(chunk, to: statement)
                _ = try statement.step()
            }
        }
    }

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
