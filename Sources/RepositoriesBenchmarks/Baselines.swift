import CSQLite
import Foundation
import Repositories
import Synchronization

/// The floor for any async repository: a dictionary behind a `Mutex`, reached through
/// async methods as a repository is.
final class RawLockedDictionary: Sendable {
    private let storage = Mutex<[Int: BenchmarkEntity]>([:])

    func fetch(id: Int) async -> BenchmarkEntity? {
        storage.withLock { $0[id] }
    }

    func save(_ entity: BenchmarkEntity) async {
        storage.withLock { $0[entity.id] = entity }
    }
}

/// The articles' approach: the whole collection encoded and written to a file on every save.
final class WholeArrayFile {
    let url: URL
    var entities: [BenchmarkEntity]

    init(url: URL, entities: [BenchmarkEntity]) {
        self.url = url
        self.entities = entities
    }

    func save(_ entity: BenchmarkEntity) throws {
        if let index = entities.firstIndex(where: { $0.id == entity.id }) {
            entities[index] = entity
        } else {
            entities.append(entity)
        }
        try JSONEncoder().encode(entities).write(to: url, options: .atomic)
    }
}

/// The raw SQLite C API doing the work `SQLiteRepository` does: JSON bodies in a table keyed
/// by ID, WAL, `synchronous=FULL`, one prepared statement per operation, each insert its own
/// transaction (one statement, one commit, as the store's single save).
final class RawSQLite {
    /// The table the rows go into.
    enum Shape {
        /// The least a keyed store needs: the ID as the rowid, the body.
        case minimal
        /// The store's table: `seq` as the rowid (insertion order), a unique index on `id`,
        /// the body as text, and a checksum column; the extra work is the index's b-tree.
        case repositoryTable
    }

    private var database: OpaquePointer?
    private var insert: OpaquePointer?
    private var select: OpaquePointer?
    private let shape: Shape
    private let encoder = JSONEncoder()
    private let decoder = JSONDecoder()

    /// - Parameter busyTimeoutMilliseconds: how long a statement waits for another
    ///   connection's lock; 0, failing at once, for a connection that writes alone.
    init(path: String, shape: Shape = .minimal, busyTimeoutMilliseconds: Int32 = 0) throws {
        self.shape = shape
        guard sqlite3_open(path, &database) == SQLITE_OK else { throw Failure(message: "open \(path)") }
        sqlite3_busy_timeout(database, busyTimeoutMilliseconds)
        try execute("PRAGMA journal_mode=WAL")
        try execute("PRAGMA synchronous=FULL")
        switch shape {
        case .minimal:
            try execute("CREATE TABLE IF NOT EXISTS items (id INTEGER PRIMARY KEY, body BLOB NOT NULL)")
            insert = try prepare(
                "INSERT INTO items (id, body) VALUES (?1, ?2) ON CONFLICT(id) DO UPDATE SET body = excluded.body"
            )
        case .repositoryTable:
            try execute(
                "CREATE TABLE IF NOT EXISTS items "
                    + "(seq INTEGER PRIMARY KEY, id NOT NULL UNIQUE, body TEXT NOT NULL, crc INTEGER NOT NULL)"
            )
            insert = try prepare(
                "INSERT INTO items (id, body, crc) VALUES (?1, ?2, ?3) "
                    + "ON CONFLICT(id) DO UPDATE SET body = excluded.body, crc = excluded.crc")
        }
        select = try prepare("SELECT body FROM items WHERE id = ?1")
    }

    deinit {
        sqlite3_finalize(insert)
        sqlite3_finalize(select)
        sqlite3_close(database)
    }

    struct Failure: Error {
        var message: String
    }

    func execute(_ sql: String) throws {
        guard sqlite3_exec(database, sql, nil, nil, nil) == SQLITE_OK else {
            throw Failure(message: String(cString: sqlite3_errmsg(database)))
        }
    }

    private func prepare(_ sql: String) throws -> OpaquePointer? {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(database, sql, -1, &statement, nil) == SQLITE_OK else {
            throw Failure(message: String(cString: sqlite3_errmsg(database)))
        }
        return statement
    }

    func save(_ entity: BenchmarkEntity) throws {
        let body = try encoder.encode(entity)
        sqlite3_reset(insert)
        sqlite3_bind_int64(insert, 1, Int64(entity.id))
        switch shape {
        case .minimal:
            _ = body.withUnsafeBytes {
                csqlite_bind_blob_transient(insert, 2, $0.baseAddress, Int32($0.count))
            }
        case .repositoryTable:
            _ = body.withUnsafeBytes {
                csqlite_bind_text_transient(
                    insert, 2, $0.baseAddress?.assumingMemoryBound(to: CChar.self), Int32($0.count))
            }
            sqlite3_bind_int64(insert, 3, Int64(body.withUnsafeBytes { CRC32.checksum($0) }))
        }
        guard sqlite3_step(insert) == SQLITE_DONE else {
            throw Failure(message: String(cString: sqlite3_errmsg(database)))
        }
    }

    func fetch(id: Int) throws -> BenchmarkEntity? {
        sqlite3_bind_int64(select, 1, Int64(id))
        // Reset once the row is copied: a statement left stepping keeps its read transaction
        // open, and every later insert would join it instead of committing.
        defer { sqlite3_reset(select) }
        guard sqlite3_step(select) == SQLITE_ROW, let bytes = sqlite3_column_blob(select, 0) else {
            return nil
        }
        let body = Data(bytes: bytes, count: Int(sqlite3_column_bytes(select, 0)))
        return try decoder.decode(BenchmarkEntity.self, from: body)
    }

    func saveInOneTransaction(_ entities: [BenchmarkEntity]) throws {
        try execute("BEGIN IMMEDIATE")
        for entity in entities { try save(entity) }
        try execute("COMMIT")
    }
}

extension RawSQLite {
    /// Saves `count` entities from `writers` threads at once, each with a connection of its
    /// own that waits for the others' locks (a busy timeout), each insert its own transaction:
    /// what concurrent writers get from SQLite without group commit. Returns how many it saved.
    static func saveConcurrently(path: String, writers: Int, count: Int) throws -> Int {
        // The table and WAL mode exist before the writers race to open.
        _ = try RawSQLite(path: path)
        let perWriter = count / writers
        let failures = WriterFailures()
        let finished = DispatchGroup()
        for writer in 0..<writers {
            finished.enter()
            Thread {
                defer { finished.leave() }
                do {
                    let raw = try RawSQLite(path: path, busyTimeoutMilliseconds: 60_000)
                    for step in 0..<perWriter { try raw.save(.make(writer * 1_000_000 + step)) }
                } catch {
                    failures.record(error)
                }
            }.start()
        }
        finished.wait()
        if let failure = failures.first { throw failure }
        return perWriter * writers
    }

    /// The errors the writer threads of ``saveConcurrently(path:writers:count:)`` met.
    private final class WriterFailures: Sendable {
        private let errors = Mutex<[any Error]>([])
        func record(_ error: any Error) { errors.withLock { $0.append(error) } }
        var first: (any Error)? { errors.withLock { $0.first } }
    }
}
