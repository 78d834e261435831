import Repositories
import Synchronization

/// Lets concurrent `save(_:)` calls share a statement and a commit, as `SQLiteRepository`'s
/// writers share one: a save that finds fewer than ``limit`` statements of saves on their way
/// sends its own at once; one that finds them all busy waits, and goes with every save that
/// waits beside it in the next statement (`save(contentsOf:)`'s multi-row upsert).
///
/// One writer alone is never delayed. Under load, a commit carries several saves: fewer
/// statements, fewer commits to flush, fewer change-log transactions, and the writes no longer
/// queue for the pool's connections one by one.
///
/// A shared statement is all or nothing, but its saves are not one another's business: when it
/// fails, each of its saves is sent again alone, and each caller gets its own outcome (a save
/// refused because a newer version wrote the row fails; the others succeed). A save that has
/// been handed to a statement runs to its end even if its caller is cancelled, as a statement
/// already sent would.
final class PostgresSaveBatcher: Sendable {
    /// The most statements of saves on their way at once.
    let limit: Int
    private let runner: PostgresPoolRunner
    private let table: PostgresTable
    private let state = Mutex(State())

    /// The most saves one statement carries.
    static let batchLimit = 500

    private struct Waiting {
        var key: PostgresKey
        var body: PostgresEncodedRow
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var waiting: [Waiting] = []
        var sending = 0
    }

    init(runner: PostgresPoolRunner, table: PostgresTable, limit: Int) {
        self.runner = runner
        self.table = table
        self.limit = max(1, limit)
    }

    /// Saves the row `key` with `body`, alone or with the saves waiting beside it; returns once
    /// its statement committed.
    ///
    /// A save that finds no other on its way sends itself at once, from its own task, so one
    /// writer alone pays for no hand-over; the saves that arrive meanwhile are sent together
    /// by a task of their own, which no caller's cancellation reaches.
    func save(_ key: PostgresKey, _ body: PostgresEncodedRow) async throws {
        try Task.checkCancellation()
        let sendsNow = state.withLock { state in
            guard state.sending == 0, state.waiting.isEmpty else { return false }
            state.sending += 1
            return true
        }
        if sendsNow {
            defer { handOver() }
            try await send([(key, body)])
            return
        }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let starts = state.withLock { state in
                state.waiting.append(Waiting(key: key, body: body, continuation: continuation))
                guard state.sending < limit else { return false }
                state.sending += 1
                return true
            }
            if starts { Task { await sendWhileWaiting() } }
        }
    }

    /// How many saves wait for a statement: for tests that order events around the batcher.
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// After a save sent from its caller's task: the saves that waited meanwhile go on in a
    /// task of their own, or the statement is free again.
    private func handOver() {
        let more = state.withLock { state in
            if state.waiting.isEmpty { state.sending -= 1 }
            return !state.waiting.isEmpty
        }
        if more { Task { await sendWhileWaiting() } }
    }

    /// Sends statements of the waiting saves until none waits, holding one connection of the
    /// pool and staying on its queue from one statement to the next: a hop to a task and back
    /// between statements woke two threads per statement, which on a small machine cost more
    /// than the statement's own client work. When another caller waits for a connection, the
    /// sender gives its connection up after the statement in progress and queues for one
    /// again, so steady saves never starve reads, transactions or a pool of one.
    private func sendWhileWaiting() async {
        let pool = runner.pool
        while true {
            do {
                let yielded = try await pool.holding { connection in
                    try await connection.run { connection -> Bool in
                        while let batch = self.next() {
                            self.send(batch, on: connection)
                            if pool.hasWaiters { return true }
                        }
                        return false
                    }
                }
                if !yielded { return }
            } catch {
                // No connection could be had (the pool is closed): the waiting saves fail with it.
                let waiting = state.withLock { state in
                    defer {
                        state.waiting = []
                        state.sending -= 1
                    }
                    return state.waiting
                }
                for save in waiting { save.continuation.resume(throwing: error) }
                return
            }
        }
    }

    /// Sends `batch` in one statement on `connection`, from its queue; when that fails, each of
    /// its saves alone, so each caller gets its own outcome.
    private func send(_ batch: [Waiting], on connection: PostgresConnection) {
        do {
            try runner.upsert(batch.map { ($0.key, $0.body) }, into: table, on: connection)
            for save in batch { save.continuation.resume() }
        } catch  where batch.count > 1 {
            for save in batch {
                do {
                    try runner.upsert([(save.key, save.body)], into: table, on: connection)
                    save.continuation.resume()
                } catch {
                    save.continuation.resume(throwing: error)
                }
            }
        } catch {
            batch[0].continuation.resume(throwing: error)
        }
    }

    /// The next statement's saves: the waiting ones in order, one per key (a later save of a
    /// key waits for the next statement, so both are applied in order), up to ``batchLimit``;
    /// `nil`, ending this sender, when none waits.
    private func next() -> [Waiting]? {
        state.withLock { state in
            guard !state.waiting.isEmpty else {
                state.sending -= 1
                return nil
            }
            var batch: [Waiting] = []
            var keys = Set<PostgresKey>()
            var left: [Waiting] = []
            for save in state.waiting {
                if batch.count < Self.batchLimit, keys.insert(save.key).inserted {
                    batch.append(save)
                } else {
                    left.append(save)
                }
            }
            state.waiting = left
            return batch
        }
    }

    private func send(_ batch: [(key: PostgresKey, row: PostgresEncodedRow)]) async throws {
        try await runner.upsert(batch, into: table)
    }
}
