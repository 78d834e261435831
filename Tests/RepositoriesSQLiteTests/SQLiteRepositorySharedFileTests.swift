import Foundation
import Repositories
import RepositoriesSQLite
import RepositoriesTestSupport
import RepositoriesTesting
import Testing

/// One database file shared by several processes, as an app and its extension share one: a
/// process that comes and goes never takes away the saves of one that stays, and processes
/// opening a new file at the same moment all get it.
///
/// The children are `RepositoriesCrashFixture` in its `sqlite-…` modes (SQLiteSharedFile.swift).
@Suite(.serialized) struct SQLiteRepositorySharedFileTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// IDs the visiting process saves, far above the ones the process that stays saves.
    static let visitorIDs = 1_000_000

    /// Process A saves until it is killed with SIGKILL; process B opens the same file, saves,
    /// closes and exits around it, once or twice a round, sometimes still running when A is
    /// killed. A round starts with the file's log removed (the check of the previous round
    /// closed the file last), so A's open reads the file itself, as a first launch after an
    /// update would. After every round, every save either acknowledged is in the file, with
    /// its value, and SQLite's integrity check passes.
    @Test func acknowledgedSavesOfTwoProcessesSurviveTheKillOfOne() async throws {
        let url = directory.file("shared.sqlite")
        var random = SeededRandomNumberGenerator(seed: 2_222)
        var acknowledged: Set<Int> = []
        var nextID = 0
        var nextVisitorID = Self.visitorIDs
        var visits = 0
        for round in 0..<ChildProcess.killCount {
            let stayer = try ChildProcess(["sqlite-save-loop", url.path, String(nextID)])
            try await stayer.waitForLine("ready")
            var visitors: [ChildProcess] = []
            let visitCount = Int.random(in: 1...2, using: &random)
            // In about half the rounds the last visitor is still at work when A is killed.
            let killDuringLastVisit = Bool.random(using: &random)
            for visit in 0..<visitCount {
                try await Task.sleep(for: .milliseconds(Int.random(in: 0...60, using: &random)))
                let visitor = try ChildProcess(["sqlite-write", url.path, String(nextVisitorID), "40"])
                nextVisitorID += 40
                visits += 1
                if visit == visitCount - 1, killDuringLastVisit {
                    visitors.append(visitor)
                } else {
                    let lines = await visitor.finish()
                    try Self.record(lines, of: visitor, into: &acknowledged, round: round)
                }
            }
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...80, using: &random)))
            let stayerLines = await stayer.kill()
            for id in stayerLines.compactMap({ Int($0) }) {
                acknowledged.insert(id)
                nextID = max(nextID, id + 1)
            }
            for visitor in visitors {
                try Self.record(await visitor.finish(), of: visitor, into: &acknowledged, round: round)
            }
            nextID += 10  // past a batch that was in flight at the kill

            let report = try RawDatabase(url).strings("PRAGMA integrity_check")
            #expect(report == ["ok"], "round \(round): SQLite's integrity check says \(report)")
            let store = try await SQLiteRepository<FixtureEntity>(fileURL: url)
            let stored = Dictionary(uniqueKeysWithValues: try await store.fetchAll().map { ($0.id, $0) })
            try await store.close()
            let lost = acknowledged.filter { stored[$0] != FixtureEntity.make($0) }.sorted()
            #expect(
                lost.count == 0,
                "round \(round): \(lost.count) of \(acknowledged.count) acknowledged saves are missing or changed, first \(lost.prefix(5))"
            )
        }
        let staying = acknowledged.filter { $0 < Self.visitorIDs }.count
        #expect(
            staying > ChildProcess.killCount * 5 && visits >= ChildProcess.killCount,
            "too little happened to prove anything: \(staying) saves of the process that stays, \(visits) visits"
        )
    }

    /// Records the IDs a visiting process acknowledged, and fails unless it ended well.
    private static func record(
        _ lines: [String], of visitor: ChildProcess, into acknowledged: inout Set<Int>, round: Int
    ) throws {
        for id in lines.compactMap({ Int($0) }) { acknowledged.insert(id) }
        #expect(
            visitor.process.terminationStatus == 0 && lines.last == "done",
            "round \(round): a visiting process exited with \(visitor.process.terminationStatus), printing \(lines.suffix(3))"
        )
    }

    /// Ten processes open a file that does not exist yet at the same moment, create it, and
    /// each saves an entity: every open waits for the others (switching the new file to WAL
    /// included) and succeeds. Thirty rounds, each on a new file: before the open waited for the
    /// switch to WAL, about one round in twenty had a process fail with `locked`.
    @Test func tenProcessesOpeningANewFileAtOnceAllSucceed() async throws {
        for round in 0..<30 {
            let url = directory.file("new-\(round).sqlite")
            let children = try (0..<10).map { id in
                try ChildProcess(["sqlite-open-at-once", url.path, String(id)])
            }
            for child in children { try await child.waitForLine("ready") }
            // Closing every child's standard input lets them all open at once.
            for child in children { child.closeInput() }
            var outcomes: [[String]] = []
            for child in children { outcomes.append(await child.finish()) }
            for (id, lines) in outcomes.enumerated() {
                #expect(
                    lines == ["done"] && children[id].process.terminationStatus == 0,
                    "round \(round): process \(id) exited with \(children[id].process.terminationStatus), printing \(lines)"
                )
            }
            let store = try await SQLiteRepository<FixtureEntity>(fileURL: url)
            #expect(try await store.fetchAll().map(\.id).sorted() == Array(0..<10), "round \(round)")
            try await store.close()
        }
    }
}
