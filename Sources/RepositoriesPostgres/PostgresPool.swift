import Repositories
import Synchronization

/// A fixed set of connections, handed to one caller at a time; callers beyond the pool's
/// size wait in arrival order.
///
/// Connections open lazily, on first use, and reopen after they are lost, so a pool made
/// while the server is down works once it is back.
final class PostgresPool: Sendable {
    private let connections: [PostgresConnection]
    private let state: Mutex<State>
    let location: String

    private struct State {
        var idle: [Int]
        var waiters: [(ticket: UInt64, continuation: CheckedContinuation<Int, any Error>)] = []
        var nextTicket: UInt64 = 0
        var closed = false
    }

    init(
        target: PostgresConnectionTarget, size: Int, label: String, backends: PostgresBackends,
        location: String
    ) {
        let count = max(1, size)
        connections = (0..<count).map { index in
            PostgresConnection(target: target, label: "\(label).\(index)", backends: backends)
        }
        state = Mutex(State(idle: Array((0..<count).reversed())))
        self.location = location
    }

    /// Runs `body` on a connection of the pool, on that connection's queue, waiting for one
    /// to be free first.
    ///
    /// - Throws: `RepositoryError` `closed` once the pool is closed; `CancellationError` when
    ///   the task is cancelled while waiting; whatever `body` throws.
    func run<Result: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> Result) async throws
        -> Result
    {
        let index = try await acquire()
        defer { release(index) }
        return try await connections[index].run(body)
    }

    /// Runs `body` holding one connection of the pool for its whole run (several statements
    /// in one transaction), waiting for one to be free first. `body` runs each statement on the
    /// connection's queue with ``PostgresConnection/run(_:)``.
    func holding<Result: Sendable>(_ body: (PostgresConnection) async throws -> Result) async throws -> Result
    {
        let index = try await acquire()
        defer { release(index) }
        return try await body(connections[index])
    }

    /// Whether ``close()`` was called.
    var isClosed: Bool { state.withLock(\.closed) }

    /// Whether a caller waits for a connection.
    var hasWaiters: Bool { waiterCount > 0 }

    /// How many callers wait for a connection.
    var waiterCount: Int { state.withLock { $0.waiters.count } }

    private func acquire() async throws -> Int {
        let ticket: UInt64
        let immediate: Result<Int, any Error>? = state.withLock { state in
            if state.closed { return .failure(RepositoryError.closed(location: location)) }
            if let index = state.idle.popLast() { return .success(index) }
            return nil
        }
        if let immediate { return try immediate.get() }
        ticket = state.withLock { state in
            defer { state.nextTicket += 1 }
            return state.nextTicket
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let resumeAt: Result<Int, any Error>? = state.withLock { state in
                    if state.closed { return .failure(RepositoryError.closed(location: location)) }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if let index = state.idle.popLast() { return .success(index) }
                    state.waiters.append((ticket, continuation))
                    return nil
                }
                if let resumeAt { continuation.resume(with: resumeAt) }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                state.waiters.firstIndex { $0.ticket == ticket }.map { state.waiters.remove(at: $0) }
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    private func release(_ index: Int) {
        let (waiter, closeIt): (CheckedContinuation<Int, any Error>?, Bool) = state.withLock { state in
            if state.closed { return (nil, true) }
            if !state.waiters.isEmpty { return (state.waiters.removeFirst().continuation, false) }
            state.idle.append(index)
            return (nil, false)
        }
        if let waiter {
            waiter.resume(returning: index)
        } else if closeIt {
            let connection = connections[index]
            Task { await connection.close() }
        }
    }

    /// Refuses new work, fails the waiting callers with `closed`, and closes every idle
    /// connection; connections in use close when their statement is done.
    func close() async {
        let (idle, waiters) = state.withLock { state in
            if state.closed { return ([Int](), [CheckedContinuation<Int, any Error>]()) }
            state.closed = true
            defer {
                state.idle = []
                state.waiters = []
            }
            return (state.idle, state.waiters.map(\.continuation))
        }
        for waiter in waiters { waiter.resume(throwing: RepositoryError.closed(location: location)) }
        for index in idle { await connections[index].close() }
    }
}

extension PostgresPool {
    /// Runs `body` on a pooled connection, once more on a new connection if the first was
    /// lost, and maps failures to `RepositoryError` on `location`.
    ///
    /// Only for statements that sending twice cannot change: reads and idempotent writes.
    func perform<Result: Sendable>(
        location: String, _ body: @escaping @Sendable (PostgresConnection) throws -> Result
    ) async throws -> Result {
        try Task.checkCancellation()
        var attempts = 0
        while true {
            attempts += 1
            do {
                return try await run(body)
            } catch let error as PostgresError {
                if Self.sendsAgain(after: error, attempts: attempts, cancelled: Task.isCancelled) { continue }
                throw error.repositoryError(location: location)
            }
        }
    }

    /// Runs `body` on `connection`, a connection already held, from its queue: once more if the
    /// connection was lost, as ``perform(location:_:)`` does, and maps failures to
    /// `RepositoryError` on `location`. Nothing cancels it.
    static func perform<Result>(
        on connection: PostgresConnection, location: String, _ body: (PostgresConnection) throws -> Result
    ) throws -> Result {
        var attempts = 0
        while true {
            attempts += 1
            do {
                return try body(connection)
            } catch let error as PostgresError {
                if sendsAgain(after: error, attempts: attempts, cancelled: false) { continue }
                throw error.repositoryError(location: location)
            }
        }
    }

    /// Whether an idempotent statement that failed with `error` on its `attempts`th try is sent
    /// again: once, after a lost connection, or after a stray cancel request that hit the
    /// statement after the one it was meant for (when the caller was not `cancelled`).
    private static func sendsAgain(after error: PostgresError, attempts: Int, cancelled: Bool) -> Bool {
        let lost = error.connectionLost && !error.failedToConnect
        let strayCancel = error.sqlState == PostgresError.queryCanceled && !cancelled
        return attempts < 2 && (lost || strayCancel)
    }
}
