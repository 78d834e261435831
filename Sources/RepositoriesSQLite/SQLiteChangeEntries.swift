import Foundation
import Repositories

/// A page of a table's change log as read, not yet trusted: each entry with the row of its key
/// as SQLite returned it, and what the page needs to say where it ends.
///
/// Reading (``SQLiteTable/changeEntries(after:limit:on:location:)``) happens on a connection;
/// checking and decoding (``page(decodingWith:id:location:)``) happen in the caller's task,
/// outside any lock, as for every other read.
struct SQLiteChangeEntries: Sendable {
    /// One entry of the log, and the table's row for its key.
    struct Entry: Sendable {
        /// The entry's change number.
        var change: Int64
        /// The `key` column, or `nil` when it holds neither an INTEGER nor TEXT.
        var key: SQLiteKey?
        /// What the `deleted_at` column says.
        var state: State
        /// The table's row of the key, as stored, or `nil` when there is none.
        var row: SQLiteStoredRow?

        enum State: Sendable {
            case saved
            case deleted
            /// Neither NULL nor an INTEGER: never written so.
            case damaged
        }

        /// The current row of ``SQLiteChangeLog/selectPage``.
        init(of statement: SQLiteStatement) {
            change = statement.int64(at: 0)
            key = statement.key(at: 1)
            if statement.isNull(at: 2) {
                state = .saved
            } else if statement.integerIfStored(at: 2) != nil {
                state = .deleted
            } else {
                state = .damaged
            }
            row = statement.isNull(at: 3) ? nil : SQLiteStoredRow(of: statement, from: 3)
        }
    }

    /// The log's origin, for the next cursor.
    var origin: String
    /// The file's `forgotten_through` when the page was read, for the next cursor.
    var bound: Int64
    /// The change number the page starts after.
    var after: Int64
    /// The entries, in the order read.
    var entries: [Entry]
    /// The log's newest change number in the page's snapshot.
    var newest: Int64
    /// The most entries the page was asked for.
    var limit: Int

    /// Pages of at least this many saved entities are decoded on every processor.
    static let entitiesPerProcessor = 1_024

    /// The page: each saved entry's row checked against its checksum and decoded by `decode`,
    /// each tombstone's key read back as an ID by `id`; an ID that two entries name (a key an
    /// earlier release spelled otherwise, and its canonical spelling) only in its latest.
    ///
    /// - Throws: `corrupted` for the first entry (in change order) that is damaged: numbers
    ///   that do not rise past the cursor, a key of neither type, a saved ID without its row
    ///   or a deleted ID with one, a row that fails its checksum or holds another key; then
    ///   for the first tombstone whose key is no ID; then the first error `decode` throws.
    func page<Entity: Identifiable & Sendable>(
        decodingWith decode: @escaping @Sendable (SQLiteRow) throws -> Entity,
        id: (SQLiteKey) throws -> Entity.ID, location: String
    ) throws -> ChangePage<Entity, Entity.ID> where Entity.ID: Sendable {
        let rows = try checkedRows(location: location)
        var tombstones: [Int: Entity.ID] = [:]
        for index in rows.indices where rows[index] == nil {
            tombstones[index] = try tombstoneID(entries[index], id: id, location: location)
        }
        let entities = try Self.decoded(rows.compactMap { $0 }, decode: decode)
        // Latest first, so an ID's first appearance is its latest.
        var seen = Set<Entity.ID>(minimumCapacity: entries.count)
        var kept: [Change<Entity>] = []
        var entityIndex = entities.count
        for index in entries.indices.reversed() {
            let change: Change<Entity>
            if let id = tombstones[index] {
                change = .deleted(id)
            } else {
                entityIndex -= 1
                change = .saved(entities[entityIndex])
            }
            if seen.insert(change.id).inserted { kept.append(change) }
        }
        var saved: [Entity] = []
        var deleted: [Entity.ID] = []
        for change in kept.reversed() {
            switch change {
            case .saved(let entity): saved.append(entity)
            case .deleted(let id): deleted.append(id)
            }
        }
        let reached = entries.last?.change ?? after
        let hasMore = entries.count >= limit && reached < newest
        let next = SQLiteChangeCursor(origin: origin, number: reached, bound: bound).cursor
        return ChangePage(saved: saved, deleted: deleted, next: next, hasMore: hasMore)
    }

    private enum Change<Entity: Identifiable> {
        case saved(Entity)
        case deleted(Entity.ID)

        var id: Entity.ID {
            switch self {
            case .saved(let entity): entity.id
            case .deleted(let id): id
            }
        }
    }

    /// For each entry in order, its row once checked when it is saved, `nil` when it is a
    /// tombstone.
    private func checkedRows(location: String) throws -> [SQLiteRow?] {
        var previous = after
        var rows: [SQLiteRow?] = []
        rows.reserveCapacity(entries.count)
        for entry in entries {
            guard entry.change > previous else {
                throw damage(entry, "its number does not come after \(previous)", location: location)
            }
            previous = entry.change
            guard let key = entry.key else {
                throw damage(entry, "its key is neither an integer nor text", location: location)
            }
            switch entry.state {
            case .damaged:
                throw damage(entry, "its deleted_at is neither NULL nor an integer", location: location)
            case .deleted:
                if let stored = entry.row {
                    throw damage(
                        entry,
                        "it says the ID was deleted, but the table holds the row with seq \(stored.seq)",
                        location: location)
                }
                rows.append(nil)
            case .saved:
                guard let stored = entry.row else {
                    throw damage(
                        entry, "it says the ID was saved, but the table holds no row of it",
                        location: location)
                }
                let row = try stored.verified(location: location)
                guard row.key == key else {
                    throw stored.damage(
                        "the ID index leads the ID \(SQLiteStoredRow.describe(key)) to it", location: location
                    )
                }
                rows.append(row)
            }
        }
        return rows
    }

    private func tombstoneID<ID>(_ entry: Entry, id: (SQLiteKey) throws -> ID, location: String) throws -> ID
    {
        // checkedRows has seen that a tombstone's key is there.
        guard let key = entry.key else { throw damage(entry, "its key is missing", location: location) }
        do {
            return try id(key)
        } catch {
            throw damage(entry, "its key does not read as an ID (\(error))", location: location)
        }
    }

    /// The `corrupted` error for `entry`: `reason` says what is wrong with it.
    private func damage(_ entry: Entry, _ reason: String, location: String) -> RepositoryError {
        let id = SQLiteStoredRow.describe(entry.key)
        var error = RepositoryError.corrupted(
            "The change log's entry \(entry.change) for the ID \(id) is damaged: \(reason)",
            location: location)
        error.id = id
        error.record = id
        return error
    }

    /// `rows` decoded in order: on every processor for a large page, as ``SQLiteDecodingScan``
    /// decodes a large `fetchAll()`.
    private static func decoded<Entity: Sendable>(
        _ rows: [SQLiteRow], decode: @escaping @Sendable (SQLiteRow) throws -> Entity
    ) throws -> [Entity] {
        guard rows.count >= 2 * entitiesPerProcessor else { return try rows.map(decode) }
        let chunks = try ParallelChunks.map(count: rows.count, minimumChunk: entitiesPerProcessor) { range in
            try rows[range].map(decode)
        }
        return Array(chunks.joined())
    }
}

extension SQLiteStoredRow {
    /// The row held by the columns `seq, id, body, crc` of a statement, from `first` on.
    init(of statement: SQLiteStatement, from first: Int32) {
        self.init(
            seq: statement.int64(at: first), key: statement.key(at: first + 1),
            body: statement.data(at: first + 2), checksum: statement.integerIfStored(at: first + 3))
    }
}

/// The keys a table's change log changed after a cursor, without their rows: what
/// ``SQLiteTable/changedKeys(after:limit:on:location:)`` reads.
struct SQLiteChangedKeys: Sendable {
    /// Each change's key in change order; `nil` for one that is neither an integer nor text.
    var keys: [SQLiteKey?]
    /// The cursor past the last key (the one asked with, when there is none).
    var next: SQLiteChangeCursor
    /// Whether the log holds changes past ``next``.
    var hasMore: Bool
}
