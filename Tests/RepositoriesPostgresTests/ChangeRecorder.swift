import Foundation
import RepositoriesPostgres
import Synchronization
import Testing

/// Collects what a change feed yields, so a test can wait for an element with a deadline
/// instead of hanging on the sequence.
final class ChangeRecorder<ID: Hashable & Sendable>: Sendable {
    private final class Received: Sendable {
        let changes = Mutex<[PostgresChange<ID>]>([])
    }

    private let received = Received()
    private let task: Task<Void, Never>

    init(_ changes: AsyncStream<PostgresChange<ID>>) {
        let received = self.received
        task = Task {
            for await change in changes { received.changes.withLock { $0.append(change) } }
        }
    }

    deinit { task.cancel() }

    var changes: [PostgresChange<ID>] { received.changes.withLock { $0 } }

    /// The IDs of every `.changed` element so far, in order.
    var changedIDs: [ID] {
        changes.flatMap { change -> [ID] in
            if case .changed(let ids) = change { return ids }
            return []
        }
    }

    /// Waits until `condition` holds for what was received, for at most `timeout`: a limit,
    /// not a measure (a change arrives within milliseconds alone; a whole test suite on two
    /// cores has kept the listener's task waiting more than ten seconds for a thread).
    ///
    /// - Throws: a failure naming `what` and what was received, when the deadline passes.
    func wait(
        for what: String, timeout: Duration = .seconds(120), _ condition: ([PostgresChange<ID>]) -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + timeout
        while !condition(changes) {
            guard ContinuousClock.now < deadline else {
                Issue.record("waited \(timeout) for \(what); received \(changes)")
                throw CancellationError()
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Waits until the feed said it listens, `count` times in all.
    func waitUntilListening(times count: Int = 1) async throws {
        try await wait(for: "started listening ×\(count)") { changes in
            changes.filter { $0 == .everything(.startedListening) }.count >= count
        }
    }
}
