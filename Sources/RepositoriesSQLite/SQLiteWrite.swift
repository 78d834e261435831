import Foundation
import Synchronization

/// One write a caller hands to the writer: keys and bytes, already encoded in the caller's
/// task, so nothing that can fail to encode ever reaches a shared transaction.
enum SQLiteWrite: Sendable {
    /// Inserts the row, or replaces the body of the row with its key (which keeps its `seq`).
    case upsert(SQLiteRow)
    /// Upserts every row, all or nothing.
    case upsertAll([SQLiteRow])
    /// Deletes the row of the key, if there is one.
    case deleteOne(SQLiteKey)
    /// Deletes the rows of the keys, all or nothing.
    case delete([SQLiteKey])
    /// Deletes every row of the table.
    case deleteAll
    /// Runs the write on another table of the same file, the table of the sibling numbered
    /// `sibling` (see ``SQLiteDatabase/sibling(table:options:upgrade:)``), rather than the
    /// writer's own.
    indirect case into(SQLiteTable, SQLiteWrite, sibling: UInt64)
    /// Runs every write, in order, all or nothing: an outbox's record and the local row it
    /// stands for, in one transaction.
    indirect case together([SQLiteWrite])
    /// Writes nothing and touches no table: its caller returns once every write queued before
    /// it has been committed or has failed (a sibling's `close()` waits so).
    case barrier
    /// Runs a body that reads and writes in one transaction no other connection interleaves
    /// with: an outbox's read-modify-write, which another process may race.
    case reading(SQLiteReadingWrite)

    /// The tables of siblings the write touches (``into(_:_:sibling:)``), by name.
    var tableNames: [String] {
        switch self {
        case .into(let table, _, _): [table.name]
        case .together(let writes): writes.flatMap(\.tableNames)
        case .reading(let write): write.tableNames
        default: []
        }
    }

    /// The numbers of the siblings whose tables the write touches.
    var siblings: [UInt64] {
        switch self {
        case .into(_, _, let sibling): [sibling]
        case .together(let writes): writes.flatMap(\.siblings)
        case .reading(let write): write.siblings
        default: []
        }
    }

    /// How many deletions the write counts for toward the next prune of tombstones: the IDs it
    /// deletes, or for `deleteAll` enough to prune at once, since it may delete any number.
    var deletionCount: Int {
        switch self {
        case .upsert, .upsertAll, .barrier: 0
        case .reading(let write): write.deletionCount
        case .deleteOne: 1
        case .delete(let keys): keys.count
        case .deleteAll: SQLiteDatabase.deletionsBetweenPrunes
        // A sibling's table keeps no change log, so no tombstones.
        case .into: 0
        case .together(let writes): writes.reduce(0) { $0 + $1.deletionCount }
        }
    }

    /// Runs the write on `connection`: on its own, it is its own transaction (a single
    /// statement, or `BEGIN IMMEDIATE … COMMIT` for the writes of several statements); inside
    /// an open transaction, it becomes part of it.
    func apply(to table: SQLiteTable, on connection: SQLiteConnection, maximumChunk: Int) throws {
        switch self {
        case .upsert(let row):
            try table.upsert(row, on: connection)
        case .upsertAll(let rows):
            guard !rows.isEmpty else { return }
            try connection.transaction(.immediate) {
                for row in rows { try table.upsert(row, on: connection) }
            }
        case .deleteOne(let key):
            try connection.withStatement(table.deleteOne) { statement in
                try statement.bind(key, at: 1)
                _ = try statement.step()
            }
        case .delete(let keys):
            let chunks = SQLiteTable.chunks(of: keys, maximum: maximumChunk)
            guard chunks.count > 1 else { return try table.delete(chunks, on: connection) }
            try connection.transaction(.immediate) { try table.delete(chunks, on: connection) }
        case .deleteAll:
            try connection.execute(table.deleteAll)
        case .into(let other, let write, _):
            try write.apply(to: other, on: connection, maximumChunk: maximumChunk)
        case .barrier:
            return
        case .reading(let write):
            try connection.transaction(.immediate) { try write.run(on: connection) }
        case .together(let writes):
            try connection.transaction(.immediate) {
                for write in writes { try write.apply(to: table, on: connection, maximumChunk: maximumChunk) }
            }
        }
    }
}

/// A write whose statements depend on what it reads: run on the writer, inside the
/// transaction (`BEGIN IMMEDIATE`, or the group's savepoint), so what it read is what it
/// changes, whoever else writes the file.
final class SQLiteReadingWrite: Sendable {
    /// The tables of siblings it touches, by name, for the errors it throws.
    let tableNames: [String]
    /// The numbers of the siblings whose tables it touches: refused once one is closed.
    let siblings: [UInt64]
    /// Reads and writes on the writer's connection, inside the transaction; returns how many
    /// rows of the owner's table it deleted.
    let body: @Sendable (SQLiteConnection) throws -> Int
    private let deleted = Mutex(0)

    /// A write of `body`, which touches the tables `tableNames` of the siblings `siblings`.
    init(
        tableNames: [String], siblings: [UInt64], body: @escaping @Sendable (SQLiteConnection) throws -> Int
    ) {
        self.tableNames = tableNames
        self.siblings = siblings
        self.body = body
    }

    /// How many rows of the owner's table the last run deleted, toward the next prune of
    /// tombstones.
    var deletionCount: Int { deleted.withLock { $0 } }

    /// Runs the body on `connection`, inside the transaction.
    func run(on connection: SQLiteConnection) throws {
        let count = try body(connection)
        deleted.withLock { $0 = count }
    }
}
