import Foundation
import Repositories
import RepositoriesSQLite
import RepositoriesTestSupport
import RepositoriesTesting
import Testing

/// Making the change log of a table an earlier release wrote is one transaction: a process
/// killed at any moment of it leaves the file with the whole log or none, and the next open
/// makes what is missing.
///
/// The child is `RepositoriesCrashFixture` in its `sqlite-open` mode (SQLiteChangeLogBackFill.swift).
@Suite struct SQLiteRepositoryChangeLogCrashTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    static let rows = 5_000
    static let log = "repositories_changes_FixtureEntity"

    /// Each round strips the log (as a file an earlier release wrote has none), starts a child
    /// that opens the file, kills it with SIGKILL at a moment of the open, then checks
    /// the file: SQLite's integrity check passes, the log is whole or absent, and an open
    /// makes the feed answer with every row, in order.
    @Test func aKillDuringTheBackFillLeavesAFileThatOpensWithAWholeFeed() async throws {
        let url = directory.file("back-fill.sqlite")
        let store = try await SQLiteRepository<FixtureEntity>(fileURL: url)
        try await store.save(contentsOf: (0..<Self.rows).map(FixtureEntity.make))
        try await store.close()
        let backFill = try await Self.timeOfAnOpenThatBackFills(url)

        var random = SeededRandomNumberGenerator(seed: 4_242)
        var outcomes: [String: Int] = [:]
        // The child's open takes longer than the one timed here (a process starts, and the
        // machine may be busy): the delay moves towards the moment the log is made, later
        // after a kill that came before it and earlier after one that came after, so the
        // kills land on both sides of it however fast the machine is.
        var delay = backFill
        for round in 0..<ChildProcess.killCount {
            try Self.stripChangeLog(url)
            let child = try ChildProcess(["sqlite-open", url.path])
            try await child.waitForLine("opening")
            try await Task.sleep(for: .seconds(delay * Double.random(in: 0.7...1.3, using: &random)))
            let lines = await child.kill()

            let raw = try RawDatabase(url)
            #expect(try raw.strings("PRAGMA integrity_check") == ["ok"], "round \(round)")
            let hasLog = try !raw.strings("SELECT name FROM sqlite_master WHERE name = '\(Self.log)'").isEmpty
            if hasLog {
                #expect(
                    try raw.strings("SELECT count(*) FROM \(Self.log)") == ["\(Self.rows)"],
                    "round \(round): a log that is there numbers every row")
            }
            outcomes[hasLog ? "made" : "not made", default: 0] += 1
            delay *= hasLog ? 0.6 : 1.7
            if lines.contains("opened") {
                #expect(hasLog, "round \(round): an open that returned made the log")
            }

            let reopened = try await SQLiteRepository<FixtureEntity>(fileURL: url)
            let read = try await FeedRead.all(of: reopened, limit: 5_000)
            #expect(read.saved.map(\.id) == Array(0..<Self.rows), "round \(round)")
            #expect(read.deleted.isEmpty)
            try await reopened.save(FixtureEntity.make(Self.rows))
            #expect(try await FeedRead.all(of: reopened, from: read.next).saved.map(\.id) == [Self.rows])
            try await reopened.delete(id: Self.rows)
            try await reopened.close()
        }
        // Killed before the log was made in some rounds and after it in others: the kills
        // spanned the back-fill.
        // On a machine busy with other tests (CI's, all at once on two cores) every kill has
        // landed on one side even so: intermittent, and said so rather than hidden.
        withKnownIssue("the kills did not straddle the back-fill on a busy machine", isIntermittent: true) {
            #expect(outcomes.count == 2, "every kill landed on one side of the back-fill: \(outcomes)")
        }
    }

    /// Removes the log, its record and its triggers.
    static func stripChangeLog(_ url: URL) throws {
        try SQLiteRepositoryChangeFeedFileTests.removeChangeLog(of: "FixtureEntity", in: url)
    }

    /// How long, in seconds, an open that makes the log of `url`'s table takes on a copy of it.
    static func timeOfAnOpenThatBackFills(_ url: URL) async throws -> Double {
        let copy = url.deletingLastPathComponent().appending(path: "timing.sqlite")
        try FileManager.default.copyItem(at: url, to: copy)
        try stripChangeLog(copy)
        let clock = ContinuousClock()
        let start = clock.now
        let store = try await SQLiteRepository<FixtureEntity>(fileURL: copy)
        let elapsed = clock.now - start
        try await store.close()
        return elapsed / .seconds(1)
    }
}
