import Foundation
import Repositories
import RepositoriesSQLite
import RepositoriesTestSupport
import RepositoriesTesting
import Testing

/// Adding and filling the columns of newly declared fields is one transaction: a process
/// killed at any moment of the open leaves the table without the columns or with every row's
/// filled, and the next open answers field queries over every row, numbering no change.
///
/// The child is `RepositoriesCrashFixture` in its `sqlite-open-indexed` mode
/// (SQLiteChangeLogBackFill.swift).
@Suite struct SQLiteRepositoryFieldColumnCrashTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// Enough rows that the fill takes a few hundred milliseconds: on a busy machine the
    /// parent needs about that long to see "opening" and kill, and a fill of 5,000 rows was
    /// over by then in every round.
    static let rows = 30_000
    static let options = SQLiteOptions(tableName: "FixtureEntity")

    /// Each round opens the table as `FixtureEntity`, which declares no fields (dropping the
    /// columns an earlier round made), starts a child that opens it as
    /// `IndexedFixtureEntity`, kills it with SIGKILL at a moment of the open, then checks the
    /// file: SQLite's integrity check passes, the columns are absent or filled in every row,
    /// and an open answers a field query as `Query.apply` does, with nothing new in the feed.
    @Test func aKillDuringTheFillLeavesNoColumnOrEveryRowFilled() async throws {
        let url = directory.file("fields.sqlite")
        let store = try await SQLiteRepository<FixtureEntity>(fileURL: url, options: Self.options)
        try await store.save(contentsOf: (0..<Self.rows).map(FixtureEntity.make))
        let cursor = try await store.changes(since: nil, limit: Self.rows).next
        try await store.close()
        let fill = try await Self.timeOfAnOpenThatFills(url)
        let reference = (0..<Self.rows).map(FixtureEntity.make).map(IndexedFixtureEntity.init)
        let query = Query<IndexedFixtureEntity>().where(\.blobLength >= 1_400).sorted(by: \.text)

        var random = SeededRandomNumberGenerator(seed: 2_626)
        var outcomes: [String: Int] = [:]
        // Moves towards the moment the columns commit, as the change log's crash test does.
        var delay = fill
        for round in 0..<ChildProcess.killCount {
            try await SQLiteRepository<FixtureEntity>(fileURL: url, options: Self.options).close()
            let child = try ChildProcess(["sqlite-open-indexed", url.path])
            try await child.waitForLine("opening")
            try await Task.sleep(for: .seconds(delay * Double.random(in: 0.7...1.3, using: &random)))
            let lines = await child.kill()

            let raw = try RawDatabase(url)
            #expect(try raw.strings("PRAGMA integrity_check") == ["ok"], "round \(round)")
            let columns = try raw.strings(
                "SELECT name FROM pragma_table_info('FixtureEntity') WHERE cid >= 4")
            #expect(columns == [] || columns == ["text", "blob_length"], "round \(round): \(columns)")
            if !columns.isEmpty {
                #expect(
                    try raw.strings(
                        "SELECT count(*) FROM FixtureEntity WHERE text IS NULL OR blob_length IS NULL") == [
                            "0"
                        ],
                    "round \(round): columns that are there are filled in every row")
            }
            outcomes[columns.isEmpty ? "not added" : "added", default: 0] += 1
            delay *= columns.isEmpty ? 1.7 : 0.6
            if lines.contains("opened") {
                #expect(!columns.isEmpty, "round \(round): an open that returned added the columns")
            }

            let reopened = try await SQLiteRepository<IndexedFixtureEntity>(
                fileURL: url, options: Self.options)
            #expect(
                try await reopened.fetch(query).map(\.id) == query.apply(to: reference).map(\.id),
                "round \(round)")
            #expect(try await reopened.changes(since: cursor, limit: 10).saved.isEmpty, "round \(round)")
            try await reopened.close()
        }
        print("field column fill, kills by outcome: \(outcomes)")
        withKnownIssue("the kills did not straddle the fill on a busy machine", isIntermittent: true) {
            #expect(outcomes.count == 2, "every kill landed on one side of the fill: \(outcomes)")
        }
    }

    /// How long, in seconds, an open that adds and fills the columns of `url`'s table takes
    /// on a copy of it.
    static func timeOfAnOpenThatFills(_ url: URL) async throws -> Double {
        let copy = url.deletingLastPathComponent().appending(path: "timing.sqlite")
        try FileManager.default.copyItem(at: url, to: copy)
        let clock = ContinuousClock()
        let start = clock.now
        let store = try await SQLiteRepository<IndexedFixtureEntity>(fileURL: copy, options: options)
        let elapsed = clock.now - start
        try await store.close()
        return elapsed / .seconds(1)
    }
}
