import Foundation
import Synchronization

/// Tells the other instances what this repository wrote, after it committed: one
/// notification per batch of commits, from a connection of its own.
///
/// PostgreSQL serialises the commits of transactions that notify (each holds a database-wide
/// lock from its notification until its commit is flushed), so a `pg_notify` inside every
/// write made four writers no faster than one. Here the writes commit without it, in
/// parallel, and announce their IDs to the notifier, which sends them in a transaction of its
/// own with `synchronous_commit` off (it writes no data, so it waits for no flush). While one
/// notification is on its way, the IDs announced meanwhile wait, and go together in the next:
/// under load, one notification carries the IDs of many commits, in the order they were
/// announced.
///
/// A notification is sent after its write committed, so a reader it reaches sees the write.
/// A process killed between a commit and its notification sends none: another instance's
/// cache then holds the old entity until its `timeToLive` ends (see
/// ``PostgresRepository/cachedCoherently(in:timeToLive:onTierFailure:onChange:)``).
final class PostgresNotifier: Sendable {
    private let connection: PostgresConnection
    private let table: PostgresTable
    private let state = Mutex(State())

    private struct State {
        var pending: [PostgresKey] = []
        var everything = false
        var draining: Task<Void, Never>?
        var closed = false
    }

    init(target: PostgresConnectionTarget, table: PostgresTable, backends: PostgresBackends) {
        self.table = table
        connection = PostgresConnection(
            target: target, label: "repositories.postgres.\(table.name).notifier", backends: backends)
    }

    /// Announces that the rows of `keys` changed; nothing when `keys` is empty.
    func announce(_ keys: [PostgresKey]) {
        guard !keys.isEmpty else { return }
        enqueue { $0.pending += keys }
    }

    /// Announces that anything may have changed (a `deleteAll`).
    func announceEverything() {
        enqueue { $0.everything = true }
    }

    private func enqueue(_ add: (inout State) -> Void) {
        state.withLock { state in
            guard !state.closed else { return }
            add(&state)
            if state.draining == nil {
                state.draining = Task { await drain() }
            }
        }
    }

    /// How long the notifier waits after a notification before it sends the next, so that the
    /// IDs of the commits meanwhile go together: a lone write is announced at once, and under
    /// load each notification carries ten milliseconds' worth of commits. Each notification
    /// costs a transaction here and a wake-up in every listening instance; at 2 ms they cost
    /// four writers a twentieth of their rate (figure 8).
    static let gather = Duration.milliseconds(10)

    /// Sends what is pending until nothing is; each round takes everything announced so far.
    private func drain() async {
        while let script = next() {
            do {
                try await connection.run { try $0.execute(script: script) }
            } catch {
                // A lost connection: once more, on a new one.
                do {
                    try await connection.run { try $0.execute(script: script) }
                } catch {
                    // Dropped: no caller waits for a notification. The listeners' caches
                    // drop the entity when their time to live ends.
                }
            }
            do {
                try await Task.sleep(for: Self.gather)
            } catch {
                // Not cancelled: nothing cancels the drain's task.
            }
        }
    }

    /// The script that sends what is pending, or `nil` (marking the drain over) when nothing is.
    private func next() -> String? {
        let (keys, everything) =
            state.withLock { state -> ([PostgresKey], Bool)? in
                guard !state.pending.isEmpty || state.everything else {
                    state.draining = nil
                    return nil
                }
                defer { (state.pending, state.everything) = ([], false) }
                return (state.pending, state.everything)
            } ?? ([], false)
        guard !keys.isEmpty || everything else { return nil }
        let payloads = everything ? [PostgresTable.everything] : payloads(keys)
        let notifications = payloads.map {
            "pg_notify(\(table.literal(table.channel)), \(table.literal($0)))"
        }
        return "SET synchronous_commit TO off; SELECT \(notifications.joined(separator: ", "));"
    }

    /// `keys` as JSON arrays of at most ``PostgresTable/payloadLimit`` bytes each, in order:
    /// `[1,2]`, `["a","b"]`; more than 8 arrays' worth (some 5,000 keys) is sent as
    /// ``PostgresTable/everything``.
    private func payloads(_ keys: [PostgresKey]) -> [String] {
        var payloads: [String] = []
        var current = ""
        for key in keys {
            let item = key.jsonText
            if !current.isEmpty, current.utf8.count + item.utf8.count + 2 > PostgresTable.payloadLimit {
                payloads.append("[" + current + "]")
                current = ""
                if payloads.count == 8 { return [PostgresTable.everything] }
            }
            current += current.isEmpty ? item : "," + item
        }
        if !current.isEmpty { payloads.append("[" + current + "]") }
        return payloads
    }

    /// Sends what is pending, then closes the connection; announcements after it are dropped.
    func close() async {
        let draining = state.withLock { state in
            state.closed = true
            return state.draining
        }
        await draining?.value
        await connection.close()
    }
}
