internal import CPostgres
import Foundation
import Synchronization

/// One libpq connection, the serial queue its blocking calls run on, and the names of the
/// statements prepared on it.
///
/// Not thread-safe, by design: ``PostgresPool`` hands a connection to one caller at a time,
/// and every libpq call on it runs on its own dispatch queue (``run(_:)``), never on a thread
/// of Swift's cooperative pool, where a call blocked on the network would stall unrelated
/// tasks. Only the cancel request crosses threads, which libpq allows (`PQcancel` is
/// thread-safe); the cancel object it uses is guarded by a lock.
final class PostgresConnection: @unchecked Sendable {
    let target: PostgresConnectionTarget
    private let queue: DispatchQueue
    private let backends: PostgresBackends
    /// The `PGconn`, or `nil` before the first use and after the connection was lost.
    private var handle: OpaquePointer?
    /// The `PGcancel` of the open connection: the one thing another thread touches.
    private let cancelHandle = Mutex<CancelHandle?>(nil)
    private var preparedNames: Set<String> = []
    /// The backend's process ID on the server, while connected.
    private(set) var backendPID: Int32?

    init(target: PostgresConnectionTarget, label: String, backends: PostgresBackends) {
        self.target = target
        self.queue = DispatchQueue(label: label)
        self.backends = backends
    }

    deinit {
        disconnect()
    }

    // MARK: Running on the queue

    /// Runs `body` on the connection's queue and returns its result to the awaiting task.
    ///
    /// Cancelling the task before `body` starts throws `CancellationError` without running
    /// it; cancelling while it runs sends the server a cancel request for the statement in
    /// progress, which then fails with SQLSTATE 57014, thrown as `CancellationError`.
    func run<Result: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> Result) async throws
        -> Result
    {
        let progress = Mutex(RunProgress.pending)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<Result, any Error>) in
                queue.async {
                    let started = progress.withLock { state in
                        guard state == .pending else { return false }
                        state = .running
                        return true
                    }
                    guard started else { return continuation.resume(throwing: CancellationError()) }
                    let outcome = Swift.Result { try body(self) }
                    let cancelled = progress.withLock { state in
                        defer { state = .finished }
                        return state == .cancelRequested
                    }
                    if cancelled, case .failure(let error as PostgresError) = outcome,
                        error.sqlState == PostgresError.queryCanceled
                    {
                        return continuation.resume(throwing: CancellationError())
                    }
                    continuation.resume(with: outcome)
                }
            }
        } onCancel: {
            progress.withLock { state in
                switch state {
                case .pending: state = .cancelled
                case .running:
                    // Under the lock, so `body` cannot finish and the queue cannot start the
                    // next caller's statement before the request is on its way.
                    state = .cancelRequested
                    sendCancelRequest()
                case .cancelled, .cancelRequested, .finished: break
                }
            }
        }
    }

    /// A `PGcancel`: libpq documents `PQcancel` as safe to call from any thread, and the
    /// lock around it keeps it from being freed during a call.
    private struct CancelHandle: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    private enum RunProgress {
        case pending, running, cancelled, cancelRequested, finished
    }

    private func sendCancelRequest() {
        cancelHandle.withLock { cancel in
            guard let cancel else { return }
            var buffer = [CChar](repeating: 0, count: 256)
            // A failed request leaves the statement to finish on its own; the caller then gets
            // its result, which is as correct as the cancellation would have been.
            _ = PQcancel(cancel.pointer, &buffer, Int32(buffer.count))
        }
    }

    // MARK: Connecting (on the queue)

    /// Whether a connection is open (it may still turn out lost at its next use).
    var isConnected: Bool { handle != nil }

    /// Opens the connection unless it is open.
    ///
    /// - Throws: ``PostgresError`` with libpq's message when the server cannot be reached or
    ///   refuses the connection.
    func connectIfNeeded() throws {
        if handle != nil { return }
        let connection = try Self.connect(target)
        handle = connection
        preparedNames = []
        let pid = PQbackendPID(connection)
        backendPID = pid
        backends.insert(pid)
        let cancel = PQgetCancel(connection).map(CancelHandle.init)
        cancelHandle.withLock { $0 = cancel }
    }

    /// Opens a new `PGconn` to `target`, blocking until it is ready or has failed.
    static func connect(_ target: PostgresConnectionTarget) throws -> OpaquePointer {
        let keywords = target.keywords.map { strdup($0) }
        let values = target.values.map { strdup($0) }
        defer { for copy in keywords + values { free(copy) } }
        let keywordPointers = keywords.map { UnsafePointer($0) } + [nil]
        let valuePointers = values.map { UnsafePointer($0) } + [nil]
        guard let connection = PQconnectdbParams(keywordPointers, valuePointers, 1) else {
            var error = PostgresError(sqlState: nil, message: "libpq could not allocate a connection")
            error.failedToConnect = true
            throw error
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            var error = PostgresError(sqlState: nil, message: Self.message(PQerrorMessage(connection)))
            error.failedToConnect = true
            PQfinish(connection)
            throw error
        }
        // libpq prints the server's notices ("relation … already exists, skipping") to standard
        // error by default; a library has no business writing there.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        return connection
    }

    /// Closes the connection on its queue, after the statement in progress, if any.
    func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async {
                self.disconnect()
                continuation.resume()
            }
        }
    }

    /// Closes the connection, if open; the next use opens a new one. On the queue.
    func disconnect() {
        cancelHandle.withLock { cancel in
            if let cancel { PQfreeCancel(cancel.pointer) }
            cancel = nil
        }
        if let backendPID { backends.remove(backendPID) }
        backendPID = nil
        preparedNames = []
        if let handle { PQfinish(handle) }
        handle = nil
    }

    // MARK: Statements (on the queue)

    /// The most statements a connection keeps prepared.
    static let preparedLimit = 512

    /// Runs the prepared statement `statement` (preparing it on this connection first, once)
    /// with binary `parameters`, and returns its rows in binary format.
    ///
    /// - Throws: ``PostgresError`` with the server's SQLSTATE and message; when the
    ///   connection turned out lost, it is closed first, and the error says so.
    func execute(_ statement: PostgresStatement, _ parameters: [PostgresParameter]) throws -> PostgresResult {
        try connectIfNeeded()
        guard let handle else { throw lostError(sql: statement.sql) }
        if !preparedNames.contains(statement.name) {
            // Queries bring statements of many shapes: past a bound, start over.
            if preparedNames.count >= Self.preparedLimit {
                _ = try check(PQexec(handle, "DEALLOCATE ALL"), sql: "DEALLOCATE ALL")
                preparedNames = []
            }
            let types = statement.parameterTypes
            let prepared = PQprepare(handle, statement.name, statement.sql, Int32(types.count), types)
            _ = try check(prepared, sql: statement.sql)
            preparedNames.insert(statement.name)
        }
        let result = Self.withBinary(parameters) { values, lengths, formats in
            PQexecPrepared(handle, statement.name, Int32(parameters.count), values, lengths, formats, 1)
        }
        return try check(result, sql: statement.sql)
    }

    /// Calls `body` with libpq's arrays for `parameters` in binary format: each value's
    /// address (`nil` for `NULL`), length and format. One buffer holds every parameter's
    /// bytes, one after the other, until `body` returns.
    private static func withBinary<Result>(
        _ parameters: [PostgresParameter],
        _ body: ([UnsafePointer<CChar>?], [Int32], [Int32]) -> Result
    ) -> Result {
        let lengths = parameters.map { Int32($0.bytes.count) }
        let buffer = UnsafeMutablePointer<CChar>.allocate(
            capacity: max(lengths.reduce(0) { $0 + Int($1) }, 1))
        defer { buffer.deallocate() }
        var values: [UnsafePointer<CChar>?] = []
        values.reserveCapacity(parameters.count)
        var offset = 0
        for parameter in parameters {
            let start = buffer + offset
            parameter.bytes.withUnsafeBytes { bytes in
                guard let base = bytes.baseAddress else { return }
                UnsafeMutableRawPointer(start).copyMemory(from: base, byteCount: bytes.count)
            }
            values.append(parameter.isNull ? nil : UnsafePointer(start))
            offset += parameter.bytes.count
        }
        return body(values, lengths, [Int32](repeating: 1, count: parameters.count))
    }

    /// Runs `sql` once, unprepared, with binary `parameters` of the OIDs `types`, and returns
    /// its rows in text format: for `EXPLAIN` of a statement the repository prepares.
    func query(_ sql: String, types: [UInt32], _ parameters: [PostgresParameter]) throws -> PostgresResult {
        try connectIfNeeded()
        guard let handle else { throw lostError(sql: sql) }
        let result = Self.withBinary(parameters) { values, lengths, formats in
            PQexecParams(handle, sql, Int32(parameters.count), types, values, lengths, formats, 0)
        }
        return try check(result, sql: sql)
    }

    /// Runs `sql` with text `parameters` and returns its rows in text format: for the few
    /// statements that run once (the table's creation and check).
    func query(_ sql: String, _ parameters: [String] = []) throws -> PostgresResult {
        try connectIfNeeded()
        guard let handle else { throw lostError(sql: sql) }
        let copies = parameters.map { strdup($0) }
        defer { for copy in copies { free(copy) } }
        let values: [UnsafePointer<CChar>?] = copies.map { UnsafePointer($0) }
        let result = PQexecParams(handle, sql, Int32(parameters.count), nil, values, nil, nil, 0)
        return try check(result, sql: sql)
    }

    /// Runs `sql`, which may hold several statements and no parameters, and returns the last
    /// one's rows in text format.
    func query(script sql: String) throws -> PostgresResult {
        try connectIfNeeded()
        guard let handle else { throw lostError(sql: sql) }
        return try check(PQexec(handle, sql), sql: sql)
    }

    /// Runs `sql`, which may hold several statements and no parameters.
    func execute(script sql: String) throws {
        try connectIfNeeded()
        guard let handle else { throw lostError(sql: sql) }
        _ = try check(PQexec(handle, sql), sql: sql)
    }

    /// The result, or the error it (or the connection) reports. A lost connection is closed;
    /// a transaction left open by a failure is rolled back.
    private func check(_ result: OpaquePointer?, sql: @autoclosure () -> String) throws -> PostgresResult {
        guard let handle else { throw lostError(sql: sql()) }
        guard let result else {
            let error = PostgresError(
                sqlState: nil, message: Self.message(PQerrorMessage(handle)), sql: sql(),
                connectionLost: PQstatus(handle) != CONNECTION_OK)
            if error.connectionLost { disconnect() }
            throw error
        }
        let owned = PostgresResult(result)
        let status = PQresultStatus(result)
        if status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK { return owned }
        let lost = PQstatus(handle) != CONNECTION_OK
        let error = PostgresError(
            sqlState: Self.field(result, "C"),
            message: Self.field(result, "M") ?? Self.message(PQresultErrorMessage(result)),
            detail: Self.field(result, "D"), hint: Self.field(result, "H"), sql: sql(), connectionLost: lost)
        if lost {
            disconnect()
        } else if PQtransactionStatus(handle) != PQTRANS_IDLE {
            PQclear(PQexec(handle, "ROLLBACK"))
        }
        throw error
    }

    private func lostError(sql: String?) -> PostgresError {
        PostgresError(sqlState: nil, message: "the connection is closed", sql: sql, connectionLost: true)
    }

    private static func field(_ result: OpaquePointer, _ code: Unicode.Scalar) -> String? {
        PQresultErrorField(result, Int32(code.value)).map { String(cString: $0) }
    }

    /// libpq's message as it wrote it, lines and all ("…failed: Connection refused\n\tIs the
    /// server running…"), without the newline it ends with.
    static func message(_ text: UnsafePointer<CChar>?) -> String {
        guard let text else { return "no message" }
        let message = String(cString: text).trimmingCharacters(in: .whitespacesAndNewlines)
        return message.isEmpty ? "no message" : message
    }
}

/// The backend process IDs of a repository's own connections, so that its change feed can
/// leave out the notifications of its own writes.
final class PostgresBackends: Sendable {
    private let pids = Mutex<Set<Int32>>([])

    func insert(_ pid: Int32) { pids.withLock { _ = $0.insert(pid) } }
    func remove(_ pid: Int32) { pids.withLock { _ = $0.remove(pid) } }
    func contains(_ pid: Int32) -> Bool { pids.withLock { $0.contains(pid) } }
}
