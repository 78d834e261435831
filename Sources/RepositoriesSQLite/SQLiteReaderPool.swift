import Foundation
import Synchronization

/// Read-only connections to a database file, for reads that run on the caller's thread.
///
/// In WAL mode readers read beside the writer: a read transaction sees the last commit at
/// the moment it starts, and neither waits for the writer nor makes it wait. So a read
/// needs no turn on the writer's queue: it borrows an idle connection (or opens one), runs,
/// and gives it back. A connection is idle here or used by exactly one thread; the pool
/// holds as many as reads ever ran at once, which the threads running them bound.
///
/// A connection here waits for no lock: its busy timeout is zero. A read that meets one (in
/// WAL mode only in passing, while another connection recovers the log after a crash) fails
/// at once with `SQLITE_BUSY`, and ``SQLiteDatabase`` runs it again on the writer's queue,
/// where waiting out the busy timeout holds no thread of Swift's cooperative pool.
final class SQLiteReaderPool: Sendable {
    private let path: String
    private let idle: Mutex<Idle>

    /// The connections no read is using, how many reads hold one, and whether ``close()``
    /// was called.
    private struct Idle: ~Copyable {
        var connections: [PooledConnection]
        var borrowed = 0
        var isClosed = false
    }

    /// A connection of the pool. Sendable because the pool hands it to one thread at a time
    /// and never touches it while that thread holds it.
    private struct PooledConnection: @unchecked Sendable {
        let connection: SQLiteConnection
    }

    /// A pool over the database at `path`, starting with `first` (already open and read-only)
    /// when given.
    init(path: String, first: consuming sending SQLiteConnection?) {
        self.path = path
        let connections = first.map { [PooledConnection(connection: $0)] } ?? []
        self.idle = Mutex(Idle(connections: connections))
    }

    /// Runs `body` with a connection of its own, on the calling thread.
    ///
    /// - Throws: ``SQLiteReaderPoolClosed`` after ``close()``; SQLite's errors, as
    ///   ``SQLiteError``, from opening a connection; whatever `body` throws.
    func read<Result>(_ body: (SQLiteConnection) throws -> Result) throws -> Result {
        let connection = try checkOut()
        defer { checkIn(connection) }
        return try body(connection.connection)
    }

    /// Closes every connection, waiting for reads still running to end; reads after it throw
    /// ``SQLiteReaderPoolClosed``.
    ///
    /// ``SQLiteDatabase`` calls it on the writer's queue before closing the writer, so that
    /// the writer is the last connection and checkpoints the log into the database file. A
    /// read holds its connection for one statement or one read transaction, so the wait is
    /// short.
    func close() {
        var borrowed = idle.withLock { idle in
            idle.isClosed = true
            idle.connections.removeAll()
            return idle.borrowed
        }
        while borrowed > 0 {
            Thread.sleep(forTimeInterval: 0.001)
            borrowed = idle.withLock { $0.borrowed }
        }
    }

    private func checkOut() throws -> PooledConnection {
        let reused = try idle.withLock { idle -> PooledConnection? in
            if idle.isClosed { throw SQLiteReaderPoolClosed() }
            idle.borrowed += 1
            return idle.connections.popLast()
        }
        if let reused { return reused }
        do {
            // Opening reads nothing yet (SQLite reads the schema at the first statement), so
            // it is quick; it happens outside the lock all the same.
            let connection = try SQLiteConnection(path: path, readOnly: true)
            try connection.setBusyTimeout(milliseconds: 0)
            return PooledConnection(connection: connection)
        } catch {
            idle.withLock { $0.borrowed -= 1 }
            throw error
        }
    }

    private func checkIn(_ borrowed: PooledConnection) {
        idle.withLock { idle in
            idle.borrowed -= 1
            if idle.isClosed {
                // Closed here, under the lock, so close() never returns before it is.
                borrowed.connection.closeQuietly()
            } else {
                idle.connections.append(borrowed)
            }
        }
    }
}

/// Thrown by ``SQLiteReaderPool`` after it was closed; ``SQLiteDatabase`` reports `closed`.
struct SQLiteReaderPoolClosed: Error {}
