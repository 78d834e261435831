import Foundation
import Repositories

extension SQLiteRepository {
    /// The IDs every connection commits to this repository's table, as they commit: another
    /// process (an app's widget or share extension on the same file), another repository
    /// instance, or this one. For live screens that must show what another process wrote.
    ///
    /// ```swift
    /// let notes = try await SQLiteRepository<Note>(fileURL: group.appending(path: "notes.sqlite"))
    /// let screen = notes.observed(following: notes.committedChanges())
    /// for try await list in screen.valuesAll() { render(list) }  // the extension's writes too
    /// ```
    ///
    /// ## What it promises
    ///
    /// - It begins with `.invalidatedAll` once it follows the table: every commit after that
    ///   marker is reported, and the marker covers any before it (read what you show after it).
    /// - Then each commit is reported as `.invalidated` with the IDs it saved or deleted (each
    ///   ID once per check, in the order of their latest change), within about `interval` of
    ///   the commit: a value stream over it shows another process's commit 12–13 ms after it
    ///   at the median, 22–23 ms at the 99th percentile, at the default 20 ms (benchmark
    ///   figure 18). It carries IDs only: read what you need again (an
    ///   `ObservedRepository` over `observed(following:)` does).
    /// - This instance's own writes are reported too, after its callers already know of them.
    /// - When more than 512 IDs changed since the last check (a bulk import elsewhere), when
    ///   the log has forgotten tombstones past where it stood (a prune, see
    ///   ``SQLiteOptions/tombstoneRetention``), or when it holds a key that does not read as an
    ///   ID, it says `.invalidatedAll` once and goes on from the log's newest change.
    /// - A check that fails with `locked` (a lock held past the busy timeout) or `unavailable`
    ///   (an I/O error) is made again at the next one, from the same point: nothing is
    ///   skipped. After 30 seconds of such failures with no check succeeding, the stream ends
    ///   by throwing the last one.
    ///
    /// It ends quietly when the repository is closed (at once) or released (at the next
    /// check), or when the consumer's task is cancelled or stops iterating; it ends by throwing
    /// when a check finds damage (`corrupted`), the error naming the file.
    ///
    /// ## What it costs
    ///
    /// All the streams of one repository share one task, which runs while at least one is
    /// iterated and checks as often as the most eager asks (at most every millisecond). A
    /// check is one read transaction on a read-only connection, which runs beside the writer
    /// (when it meets a lock, as while another connection recovers the log after a crash, it
    /// runs on this repository's writer queue, as every read does): it reads the file's
    /// schema, the log's record in `repositories_change_feeds` and its newest change number
    /// (the last entry of its index), and the log's entries past the last one reported (their
    /// change numbers and keys). No row of the table is read, and nothing is decoded but the
    /// IDs. Idle, following cost the benchmark's process 2.6–2.8% of one core at 20 ms
    /// checks (figure 18, on a 2-core Linux machine); a longer `interval` costs less and adds
    /// to the delay.
    ///
    /// - Parameter interval: how long the task waits between two checks; 20 ms by default.
    public func committedChanges(checkingEvery interval: Duration = .milliseconds(20))
        -> AsyncThrowingStream<RepositoryChange<Entity>, any Error>
    {
        commits.subscribe(checkingEvery: interval)
    }
}

extension SQLiteRepository {
    /// How many ``committedChanges(checkingEvery:)`` streams follow the log now: a test hook,
    /// so a test can tell the checks stopped with the last stream.
    package var committedChangesStreamCount: Int { commits.subscriberCount }

    /// How many checks of the change log the streams' task ran so far: a test hook.
    package var committedChangesCheckCount: Int { commits.checkCount }
}
